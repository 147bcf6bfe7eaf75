"""``consent.enforce`` on the calls that set up and fetch events: subscribe
and refresh, poll (and a block between a poll's or a webhook's receipt
and its forward), push (the held ``events/stream``) and task sources
(``tasks/get``) (the faults: ``enforce_support.py``)."""

from __future__ import annotations

import asyncio

import pytest

from consent.enforce import CONSENT_UNAVAILABLE
from consent.models import Grant, Scope
from outbox.models import DeliveryStatus, HostDelivery
from subscriptions.models import Mode, Subscription, SubscriptionStatus
from subscriptions.services import webhook_receive
from subscriptions.services.poll import subscription_poll
from subscriptions.services.refresh import subscription_refresh
from switchboard.services.server_block import server_block
from tests.consent.enforce_support import (
    _requests,
    _revoke,
    _subscription,
    _unsent_events,
    while_session_opens,
)
from tests.subscriptions.support import SYSTEM, approve_events, event_body, signed

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


# --- events: subscribe, refresh, poll -----------------------------------------------------


def _subscribes(refserver) -> list[dict]:
    return refserver.control("GET", "received?kinds=subscribe")["subscribe"]


def _polls(refserver) -> list[dict]:
    return refserver.control("GET", "received?kinds=poll")["poll"]


@pytest.mark.parametrize(
    "status", [SubscriptionStatus.PENDING, SubscriptionStatus.ACTIVE], ids=["subscribe", "refresh"]
)
def test_subscribe_and_refresh_a_revoke_while_the_session_opens_sends_nothing(
    tpersonas, refserver, ref, events_grant, status
):
    sub = _subscription(tpersonas, ref, status=status)
    with while_session_opens(refserver, _revoke(events_grant)):
        outcome = subscription_refresh(subscription_id=sub.pk)
    assert outcome == "revoked"
    assert _subscribes(refserver) == []
    assert Subscription.objects.get(pk=sub.pk).status == SubscriptionStatus.REVOKED


@pytest.mark.parametrize(
    "status", [SubscriptionStatus.PENDING, SubscriptionStatus.ACTIVE], ids=["subscribe", "refresh"]
)
def test_subscribe_and_refresh_an_unreadable_store_sends_nothing_and_says_so(
    tpersonas, refserver, ref, events_grant, store, status
):
    sub = _subscription(tpersonas, ref, status=status)
    with while_session_opens(refserver, store.take_away):
        outcome = subscription_refresh(subscription_id=sub.pk)
    store.put_back()
    assert outcome == "retry"
    assert _subscribes(refserver) == []
    sub.refresh_from_db()
    # Not revoked: consent that could not be read is no answer; tried again.
    assert (sub.status, sub.last_error) == (status, CONSENT_UNAVAILABLE)
    assert "nothing was sent" in sub.last_error_message
    assert sub.next_refresh_at is not None
    assert tpersonas.acme_api.get(f"/subscriptions/{sub.pk}").json()["last_error"] == (
        CONSENT_UNAVAILABLE
    )


def test_poll_a_revoke_while_the_session_opens_sends_nothing(
    tpersonas, refserver, ref, events_grant
):
    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE, mode=Mode.POLL)
    with while_session_opens(refserver, _revoke(events_grant)):
        outcome = subscription_poll(subscription_id=sub.pk)
    assert outcome == "revoked"
    assert _polls(refserver) == []


def test_poll_an_unreadable_store_sends_nothing_and_says_so(
    tpersonas, refserver, ref, events_grant, store
):
    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE, mode=Mode.POLL)
    with while_session_opens(refserver, store.take_away):
        outcome = subscription_poll(subscription_id=sub.pk)
    store.put_back()
    assert outcome == "retry"
    assert _polls(refserver) == []
    sub.refresh_from_db()
    assert (sub.status, sub.last_error) == (SubscriptionStatus.ACTIVE, CONSENT_UNAVAILABLE)


def _assert_withdrawn(tpersonas, sub) -> None:
    rows = HostDelivery.objects.filter(stream=sub.pk, type="event.received")
    assert rows.exists()
    assert _unsent_events(sub) == []
    for row in rows:
        assert row.status == DeliveryStatus.FAILED
        assert row.last_error_category == "server_blocked"
        assert row.body["data"]["event"]["data"] is None
    # Pull delivery does not hand the event's data out either.
    pulled = tpersonas.acme_api.get(f"/subscriptions/{sub.pk}/events").json()["items"]
    assert all(
        item["data"]["event"]["data"] is None for item in pulled if item["type"] == "event.received"
    ), pulled


def test_poll_a_block_between_receipt_and_forward_stops_the_events(
    tpersonas, refserver, ref, events_grant
):
    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE, mode=Mode.POLL)
    assert subscription_poll(subscription_id=sub.pk) == "ok"  # the cursor: events from now on
    refserver.control(
        "POST",
        "emit",
        {
            "name": "ticket.created",
            "data": {"key": "T-1", "title": "secret"},
            "arguments": {"project": "apollo"},
        },
    )
    assert subscription_poll(subscription_id=sub.pk) == "ok"
    # Received, and waiting for the host (it has no endpoint yet).
    assert len(_unsent_events(sub)) == 1
    server_block(server=ref, actor=SYSTEM)
    _assert_withdrawn(tpersonas, sub)


def test_webhook_a_block_between_receipt_and_forward_stops_the_events(tpersonas, ref, events_grant):
    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE)
    Subscription.objects.filter(pk=sub.pk).update(remote_id="sub_remote")
    headers, raw = signed(sub.secret, event_body("evt_secret", repo="acme/secret"))
    assert webhook_receive(token=sub.token, headers=headers, body=raw).status == 200
    assert len(_unsent_events(sub)) == 1
    server_block(server=ref, actor=SYSTEM)
    _assert_withdrawn(tpersonas, sub)


# --- push: the held events/stream -------------------------------------------------------


def _requested(refserver, method: str) -> int:
    return _requests(refserver, method)


def _hold_push(sub) -> str:
    """The session worker's hold of one push stream, in this process (its
    own event loop; sessions borrowed as the worker's are)."""
    from subscriptions.services.push import push_hold
    from switchboard.sessions.report import StreamReport
    from switchboard.sessions.shared import SharedSessions

    async def hold() -> str:
        sessions = SharedSessions()
        report = StreamReport(key=f"push:{sub.pk}", holder="test", sessions=sessions, framed=set())
        try:
            return await asyncio.wait_for(push_hold(sub.pk, report), timeout=15)
        finally:
            await sessions.close()

    return asyncio.run(hold())


def test_push_a_revoke_while_the_session_opens_opens_no_stream(
    tpersonas, refserver, ref, events_grant
):
    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE, mode=Mode.PUSH)
    with while_session_opens(refserver, _revoke(events_grant)):
        outcome = _hold_push(sub)
    assert outcome == "done"
    assert _requested(refserver, "events/stream") == 0
    assert Subscription.objects.get(pk=sub.pk).status == SubscriptionStatus.REVOKED


def test_push_an_unreadable_store_opens_no_stream_and_says_so(
    tpersonas, refserver, ref, events_grant, store
):
    from consent.enforce import OutboundRefused

    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE, mode=Mode.PUSH)
    with pytest.raises(OutboundRefused), while_session_opens(refserver, store.take_away):
        _hold_push(sub)  # raising: the worker reconnects after its backoff
    store.put_back()
    assert _requested(refserver, "events/stream") == 0
    sub.refresh_from_db()
    # Not revoked: consent that could not be read is no answer; tried again.
    assert (sub.status, sub.last_error) == (SubscriptionStatus.ACTIVE, CONSENT_UNAVAILABLE)


# --- task sources: tasks/get on the user's behalf ---------------------------------------


@pytest.fixture
def watched_task(tpersonas, refserver, ref, events_grant, settings):
    from subscriptions.models import TaskWatch

    settings.TASK_EVENT_SOURCES = True
    approve_events(tpersonas.alice, ref, ["build.finished", "ticket.created", "deploy.progress"])
    created = refserver.control("POST", "tasks", {"service": "api", "poll_interval_ms": 500})
    answer = tpersonas.acme_api.post(
        "/tasks",
        json={
            "user": "alice",
            "server": ref.id,
            "task_id": created["task"]["taskId"],
            "event_source": created["eventSource"],
        },
    )
    assert answer.status_code == 201, answer.content
    return TaskWatch.objects.get(pk=answer.json()["id"])


def _check_task(watch) -> str:
    from subscriptions.services.task_sources import task_watch_check

    watch.refresh_from_db()
    return task_watch_check(watch_id=watch.pk, due=watch.next_check_at.isoformat())


def test_task_source_a_revoke_while_the_session_opens_sends_nothing(
    tpersonas, refserver, ref, watched_task
):
    grant = Grant.objects.live().get(user=tpersonas.alice, server=ref, scope=Scope.EVENTS)
    with while_session_opens(refserver, _revoke(grant)):
        outcome = _check_task(watched_task)
    assert outcome == "retry"
    assert _requested(refserver, "tasks/get") == 0
    watched_task.refresh_from_db()
    assert watched_task.ended_at is None and watched_task.last_error.startswith("no_consent")


def test_task_source_an_unreadable_store_sends_nothing_and_says_so(
    tpersonas, refserver, ref, watched_task, store
):
    with while_session_opens(refserver, store.take_away):
        outcome = _check_task(watched_task)
    store.put_back()
    assert outcome == "retry"
    assert _requested(refserver, "tasks/get") == 0
    watched_task.refresh_from_db()
    assert watched_task.ended_at is None
    assert watched_task.last_error.startswith(CONSENT_UNAVAILABLE)
