"""Push frames of many streams written together (``push_frames_take``): the
same outcome as one frame at a time, in a number of statements that does not
grow with the burst; and the batcher that groups them (``Batched``)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from outbox.models import DeliveryStatus, HostDelivery, HostEndpoint
from outbox.publish import publisher
from subscriptions.models import Mode, ReceivedEvent, Subscription, SubscriptionStatus
from subscriptions.services import intake
from subscriptions.services.channels import channel_parse
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


def _writes(queries: CaptureQueriesContext) -> list[str]:
    """The statements of a burst but the transaction's own (BEGIN, COMMIT,
    savepoints: the test's transaction turns the burst's into savepoints)."""
    control = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK")
    return [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(control)]


def mixed_burst(personas, server, first: int) -> tuple[list[Subscription], list[Frame]]:
    """One of each: a new event, a replay, an event the filter holds back,
    a digest's event, a heartbeat (``first`` keeps the subscriptions apart;
    the frames are the same whatever it is)."""
    plain, replayed, heartbeat = (push_sub(personas, server, first + n) for n in range(3))
    filtered = push_sub(personas, server, first + 3, filter={"tags": ["deploy"]})
    digest = push_sub(
        personas,
        server,
        first + 4,
        channel=channel_parse({"type": "cron", "expression": "* * * * *", "timezone": "UTC"}),
    )
    push_frames_take([Frame(replayed.pk, "event", event(1, "before"))])
    subs = [plain, replayed, filtered, digest, heartbeat]
    frames = [
        Frame(plain.pk, "event", event(0)),
        Frame(replayed.pk, "event", event(1)),
        Frame(filtered.pk, "event", event(3)),
        Frame(digest.pk, "event", event(4)),
        Frame(heartbeat.pk, "heartbeat", {"cursor": "hb"}),
    ]
    return subs, frames


def test_on_postgresql_a_burst_is_two_statements_whatever_it_holds(personas, server):
    if connection.vendor != "postgresql":
        pytest.skip("the two-statement path needs data-modifying CTEs (PostgreSQL)")
    subs, frames = mixed_burst(personas, server, 0)
    with CaptureQueriesContext(connection) as queries:
        outcomes = push_frames_take(frames)
    # The lock (with the user and the endpoint joined in), then one
    # statement for the events, the outbox rows and the cursors.
    assert len(_writes(queries)) == 2, _writes(queries)
    assert outcomes == [None] * len(frames)
    assert [forwarded(s) for s in subs] == [["evt-0"], ["evt-1"], [], [], []]
    more = [push_sub(personas, server, 100 + n) for n in range(30)]
    with CaptureQueriesContext(connection) as queries:
        push_frames_take([Frame(s.pk, "event", event(100 + n)) for n, s in enumerate(more)])
    assert len(_writes(queries)) == 2, _writes(queries)
    assert all(forwarded(s) for s in more)


def _outcome(subs: list[Subscription]) -> list[dict]:
    """What a burst left on each subscription, without what differs by
    nature (ids, times of writing)."""
    found = []
    for sub in subs:
        row = Subscription.objects.get(pk=sub.pk)
        deliveries = []
        for d in HostDelivery.objects.filter(stream=sub.id).order_by("seq"):
            assert d.body["data"].pop("subscription_id") == sub.id
            assert d.created_at is not None
            pending = d.status == DeliveryStatus.PENDING
            assert (d.next_attempt_at is not None) == pending == (d.enqueued_at is not None)
            deliveries.append((d.type, d.status, d.host_id, sorted(d.body), d.body["data"]))
        found.append(
            {
                "events": [
                    (e.kind, e.webhook_id, e.event_id, e.body, e.cursor, e.occurred_at)
                    + (e.digest_state, e.received_at is not None)
                    for e in ReceivedEvent.objects.filter(subscription=sub).order_by("id")
                ],
                "deliveries": deliveries,
                "cursor": row.cursor,
                "cursor_event_at": row.cursor_event_at,
                "filtered_count": row.filtered_count,
                "last_event": row.last_event_at is not None,
                "status": row.status,
            }
        )
    return found


def test_both_paths_leave_the_same_rows(
    personas, server, monkeypatch, django_capture_on_commit_callbacks
):
    """The two-statement path (PostgreSQL) writes what the ORM path writes,
    enqueues the same pending rows and broadcasts the same pages."""
    HostEndpoint.objects.create(
        host=personas.acme, url="https://host.example.test/hook", secret_encrypted="unused"
    )
    published: list[int] = []
    monkeypatch.setattr(publisher, "publish", published.extend)
    broadcast: list[str] = []
    monkeypatch.setattr(intake, "subscription_broadcast_soon", lambda s: broadcast.append(s.pk))
    native = intake.one_statement_available

    results = []
    for first, available in ((0, lambda: False), (1000, native)):
        monkeypatch.setattr(intake, "one_statement_available", available)
        subs, frames = mixed_burst(personas, server, first)
        Subscription.objects.filter(pk=subs[2].pk).update(cursor_event_at=timezone.now())
        published.clear()
        broadcast.clear()
        with django_capture_on_commit_callbacks(execute=True):
            assert push_frames_take(frames) == [None] * len(frames)
        results.append(
            {
                "rows": _outcome(subs),
                "published": [d.stream for d in HostDelivery.objects.filter(seq__in=published)]
                == [subs[0].id],
                "broadcast": sorted(
                    subs.index(next(s for s in subs if s.pk == pk)) for pk in broadcast
                ),
            }
        )
    orm, native_path = results
    assert orm["published"] and orm["broadcast"] == [0, 3]  # the new event; the digest's
    assert orm["rows"][0]["deliveries"][0][1] == DeliveryStatus.PENDING
    assert orm["rows"][2]["filtered_count"] == 1 and orm["rows"][3]["events"][0][6] == "waiting"
    assert native_path == orm


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
