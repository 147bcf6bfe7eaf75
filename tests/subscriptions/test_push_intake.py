"""Push frames of many streams written together (``push_frames_take``): the
same outcome as one frame at a time, in a number of statements that does not
grow with the burst; and the batcher that groups them (``Batched``)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from outbox.models import HostDelivery
from subscriptions.models import Mode, ReceivedEvent, Subscription, SubscriptionStatus
from subscriptions.services.push import Frame, push_frames_take
from switchboard.sessions.batch import Batched
from tests.subscriptions.support import approve_events, make_event_server, make_subscription

EVENT = "deploy.status"


@pytest.fixture
def server(personas):
    server = make_event_server(personas.acme)
    approve_events(personas.alice, server, [EVENT])
    return server


def push_sub(personas, server, n: int, **fields) -> Subscription:
    return make_subscription(
        personas.alice, server, event=EVENT, arguments={"n": n}, mode=Mode.PUSH, **fields
    )


def event(n: int, cursor: str | None = None) -> dict:
    return {
        "eventId": f"evt-{n}",
        "name": EVENT,
        "timestamp": "2026-11-25T10:00:00Z",
        "data": {"state": "rolling", "n": n},
        "cursor": cursor or str(n),
        "_meta": {"io.modelcontextprotocol/subscriptionId": "remote"},
    }


def forwarded(sub: Subscription) -> list[str]:
    return [
        d.body["data"]["event"]["eventId"]
        for d in HostDelivery.objects.filter(stream=sub.id, type="event.received").order_by("seq")
    ]


def test_a_burst_is_taken_in_as_frame_by_frame_would(personas, server):
    running = [push_sub(personas, server, n) for n in range(3)]
    pending = push_sub(personas, server, 10, status=SubscriptionStatus.PENDING)
    ending = push_sub(personas, server, 11)
    # running[1] has its event already (a replay after a reconnect).
    push_frames_take([Frame(running[1].pk, "event", event(1, "c1"))])
    assert forwarded(running[1]) == ["evt-1"]

    outcomes = push_frames_take(
        [
            Frame(running[0].pk, "event", event(0, "c0")),
            Frame(running[1].pk, "event", event(1, "c1-again")),
            Frame(running[2].pk, "heartbeat", {"cursor": "c2"}),
            Frame(pending.pk, "event", event(10, "c10")),
            Frame(ending.pk, "terminated", {"error": {"code": -32011, "message": "gone"}}),
        ]
    )

    assert outcomes == [None, None, None, None, "done"]
    assert forwarded(running[0]) == ["evt-0"]
    assert forwarded(running[1]) == ["evt-1"]  # not twice
    assert forwarded(running[2]) == []
    assert forwarded(pending) == ["evt-10"]
    cursors = dict(Subscription.objects.values_list("pk", "cursor"))
    assert cursors[running[0].pk] == "c0"
    assert cursors[running[1].pk] == "c1-again"  # the cursor still moves on
    assert cursors[running[2].pk] == "c2"
    assert cursors[pending.pk] == "c10"
    statuses = dict(Subscription.objects.values_list("pk", "status"))
    assert statuses[pending.pk] == SubscriptionStatus.ACTIVE  # the slow path's status change
    assert statuses[ending.pk] == SubscriptionStatus.TERMINATED
    stored = ReceivedEvent.objects.get(subscription=running[0], event_id="evt-0")
    assert stored.cursor == "c0" and stored.body["data"] == {"state": "rolling", "n": 0}
    assert Subscription.objects.get(pk=running[0].pk).last_event_at is not None
    delivery = HostDelivery.objects.get(stream=running[0].id)
    assert delivery.body["data"]["event"]["trust"]  # the same shape as one by one
    assert delivery.body["data"]["user"] == "alice"


def test_the_statements_do_not_grow_with_the_burst(personas, server):
    def statements(first: int, count: int) -> int:
        subs = [push_sub(personas, server, first + n) for n in range(count)]
        with CaptureQueriesContext(connection) as queries:
            push_frames_take([Frame(s.pk, "event", event(first + i)) for i, s in enumerate(subs)])
        assert all(forwarded(s) for s in subs)
        return len(queries)

    few, many = statements(0, 3), statements(100, 40)
    assert many == few, (few, many)
    assert few <= 10, few


def test_two_frames_of_one_subscription_keep_their_order(personas, server):
    sub = push_sub(personas, server, 0)
    push_frames_take(
        [Frame(sub.pk, "event", event(1, "c1")), Frame(sub.pk, "event", event(2, "c2"))]
    )
    assert forwarded(sub) == ["evt-1", "evt-2"]
    assert Subscription.objects.get(pk=sub.pk).cursor == "c2"


def test_the_batcher_groups_what_arrives_while_it_writes_and_isolates_a_failure():
    calls: list[list[int]] = []
    first_call_started = threading.Event()
    release_first = threading.Event()

    def write(items: list[int]) -> list[int]:
        calls.append(list(items))
        if len(calls) == 1:
            first_call_started.set()
            release_first.wait(5)
        if 13 in items:
            raise ValueError("unlucky")
        return [item * 10 for item in items]

    async def scenario():
        batched = Batched(write, max_items=50, concurrency=1)
        first = asyncio.create_task(batched(1))
        await asyncio.to_thread(first_call_started.wait, 5)
        # These arrive while the first write runs: one write for all of them.
        rest = [asyncio.create_task(batched(n)) for n in (2, 3, 13, 4)]
        await asyncio.sleep(0.05)
        release_first.set()
        results = await asyncio.gather(first, *rest, return_exceptions=True)
        return results

    results = asyncio.run(scenario())
    assert results[:3] == [10, 20, 30] and results[4] == 40
    assert isinstance(results[3], ValueError)  # only the bad one fails
    assert calls[0] == [1] and calls[1] == [2, 3, 13, 4]  # grouped, then one by one
    assert [2] in calls[2:] and [13] in calls[2:]
