"""Subscribe/refresh outcomes: the error table, backoff before expiry,
scheduling at 2/3 of the TTL, claims. Calls go to the real reference server
(a process) where the outcome does not need our receiver to be reachable."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from celery import current_app
from django.utils import timezone

from outbox.models import HostDelivery
from subscriptions.models import ReceivedEvent, RefreshAttempt, Subscription, SubscriptionStatus
from subscriptions.services import (
    subscription_refresh,
    subscriptions_due_for_refresh,
    subscriptions_refresh_due,
    webhook_receive,
)
from subscriptions.services.modes import delivery_start
from subscriptions.services.refresh import _apply_success
from subscriptions.services.remote import reaction_for
from switchboard.mcp import McpCallError
from switchboard.mcp.wire import DeliveryStatus, EventsSubscribeResult
from switchboard.models import AuditEntry
from tests.live import free_port
from tests.subscriptions.support import (
    approve_events,
    event_body,
    make_event_server,
    make_subscription,
    signed,
)

pytestmark = pytest.mark.processes


@pytest.fixture
def personas(session_beat_aside, tpersonas, tasks_sent):
    """Committed personas: before it sends, a refresh reads consent again on
    a connection of its own (``consent.enforce.outbound_check``, docs/reliability.md
    row 10), which sees only committed rows, as the worker's would. Tasks
    are recorded, not sent: these tests call the services themselves, and a
    live worker of the session must not refresh their subscriptions too. A
    live stack's beat, if one runs, stays aside meanwhile
    (``session_beat_aside``)."""
    return tpersonas


@pytest.fixture
def server(personas, refserver):
    server = make_event_server(personas.acme, url=refserver.mcp_url)
    approve_events(personas.alice, server, ["build.finished", "ticket.created"])
    return server


def due(sub: Subscription, **fields) -> Subscription:
    for name, value in fields.items():
        setattr(sub, name, value)
    sub.next_refresh_at = timezone.now()
    sub.save()
    return sub


def test_29_invalid_params_fail_the_subscription_without_retry(personas, server, refserver):
    """Case 29: arguments the server refuses (-32602) are not retried unchanged."""
    sub = due(
        make_subscription(personas.alice, server, arguments={"colour": "red"}, status="pending")
    )
    assert subscription_refresh(subscription_id=sub.id) == "failed"
    sub.refresh_from_db()
    assert sub.status == SubscriptionStatus.FAILED and sub.next_refresh_at is None
    assert sub.last_error == "invalid_params" and "rejected" in sub.last_error_message
    assert HostDelivery.objects.get(type="subscription.updated").body["data"]["status"] == "failed"
    attempt = RefreshAttempt.objects.get(subscription=sub)
    assert (attempt.kind, attempt.ok, attempt.error_code) == ("subscribe", False, -32602)


def test_an_event_type_the_server_dropped_fails_it(personas, server, refserver):
    refserver.control("POST", "event-types", {"types": []})
    sub = due(make_subscription(personas.alice, server, status="pending"))
    assert subscription_refresh(subscription_id=sub.id) == "failed"
    assert Subscription.objects.get(pk=sub.pk).last_error == "event_not_found"


def test_a_transient_error_backs_off_but_stays_before_expiry(personas, server, refserver):
    refserver.control("POST", "behaviour", {"method": "events/subscribe", "fail": "error"})
    expiry = timezone.now() + timedelta(seconds=60)
    sub = due(make_subscription(personas.alice, server, refresh_before=expiry))
    assert subscription_refresh(subscription_id=sub.id) == "retry"
    sub.refresh_from_db()
    assert sub.status == SubscriptionStatus.ACTIVE and sub.refresh_failures == 1
    assert timezone.now() < sub.next_refresh_at < expiry
    assert sub.last_error == "server_error"
    assert subscription_refresh(subscription_id=sub.id) == "retry"  # a refresh may also be forced
    assert Subscription.objects.get(pk=sub.pk).refresh_failures == 2


def test_a_failed_refresh_after_expiry_shows_expired_and_keeps_trying(personas, server, refserver):
    refserver.control("POST", "behaviour", {"method": "events/subscribe", "fail": "error"})
    sub = due(
        make_subscription(
            personas.alice, server, refresh_before=timezone.now() - timedelta(seconds=1)
        )
    )
    assert subscription_refresh(subscription_id=sub.id) == "retry"
    sub.refresh_from_db()
    assert sub.status == SubscriptionStatus.EXPIRED and sub.next_refresh_at is not None
    notice = HostDelivery.objects.get(type="subscription.updated")
    assert (notice.body["data"]["status"], notice.body["data"]["previous_status"]) == (
        "expired",
        "active",
    )
    assert RefreshAttempt.objects.get(subscription=sub).kind == "resubscribe"


def test_an_unreachable_server_is_retried(personas):
    server = make_event_server(personas.acme, url=f"http://127.0.0.1:{free_port()}/mcp")
    approve_events(personas.alice, server, ["build.finished"])
    sub = due(make_subscription(personas.alice, server, status="pending"))
    assert subscription_refresh(subscription_id=sub.id) == "retry"
    sub.refresh_from_db()
    assert sub.status == SubscriptionStatus.PENDING and sub.last_error == "connection_refused"


def test_a_subscription_without_live_consent_is_revoked_instead_of_refreshed(
    personas, server, refserver
):
    sub = due(make_subscription(personas.alice, server, event="build.finished"))
    other = make_event_server(personas.acme, url=refserver.mcp_url, name="No consent")
    unconsented = due(make_subscription(personas.alice, other))
    assert subscription_refresh(subscription_id=unconsented.id) == "revoked"
    assert Subscription.objects.get(pk=unconsented.pk).status == SubscriptionStatus.REVOKED
    # Nothing subscribed for it. The session's reference server is shared: a
    # subscribe a live test's worker had in flight when that test ended can
    # land here (found by CI), so only this subscription's are counted.
    subscribes = refserver.control("GET", "received?kinds=subscribe")["subscribe"]
    assert [s for s in subscribes if unconsented.token in json.dumps(s)] == []
    assert Subscription.objects.get(pk=sub.pk).status == SubscriptionStatus.ACTIVE


def test_a_claimed_subscription_is_not_refreshed_twice(personas, server, refserver):
    sub = due(
        make_subscription(personas.alice, server),
        refresh_claimed_until=timezone.now() + timedelta(minutes=1),
    )
    assert subscription_refresh(subscription_id=sub.id) == "busy"
    assert refserver.control("GET", "received?kinds=subscribe")["subscribe"] == []


def test_a_start_and_a_beat_tick_at_once_subscribe_once(
    personas, server, refserver, tasks_sent, django_capture_on_commit_callbacks
):
    """Regression (found by CI: two ``events/subscribe`` 35 ms apart on
    approval): a start sent a bare refresh task while beat, ticking at that
    moment, dispatched the same due subscription; each task ran it in turn.
    A start's task now carries the due time it was sent for, and whichever
    of the two takes that due time first runs it."""
    sub = make_subscription(personas.alice, server, status="pending")
    with django_capture_on_commit_callbacks(execute=True):
        delivery_start(sub)
        subscriptions_refresh_due()
    assert sorted(name for name, _, _ in tasks_sent) == [
        "subscriptions.refresh_subscription",
        "subscriptions.refresh_when_due",
    ]
    current_app.loader.import_default_modules()  # the task registry, as a worker has it
    outcomes = [current_app.tasks[name].run(*args) for name, args, _ in tasks_sent]
    # One of them calls the server (our receiver is not up here, so the
    # subscribe itself is retried later: the outcome is "retry").
    assert outcomes.count("not_due") == 1, outcomes
    assert len(refserver.control("GET", "received?kinds=subscribe")["subscribe"]) == 1


def test_the_scheduler_sees_only_due_unclaimed_rows_oldest_first(personas, server):
    now = timezone.now()
    late = due(
        make_subscription(personas.alice, server, arguments={"repo": "a"}), next_refresh_at=None
    )
    Subscription.objects.filter(pk=late.pk).update(next_refresh_at=now - timedelta(minutes=5))
    soon = make_subscription(personas.alice, server, arguments={"repo": "b"})
    Subscription.objects.filter(pk=soon.pk).update(next_refresh_at=now - timedelta(minutes=1))
    future = make_subscription(personas.alice, server, arguments={"repo": "c"})
    Subscription.objects.filter(pk=future.pk).update(next_refresh_at=now + timedelta(minutes=1))
    claimed = make_subscription(personas.alice, server, arguments={"repo": "d"})
    Subscription.objects.filter(pk=claimed.pk).update(
        next_refresh_at=now - timedelta(minutes=9), refresh_claimed_until=now + timedelta(minutes=1)
    )
    assert subscriptions_due_for_refresh(now=now) == [late.id, soon.id]


def test_24_26_27_a_refresh_answer_is_applied(personas, server):
    """Case 24, case 26, case 27: next refresh at 2/3 of the grant; a truncated
    answer flags a gap with the fresh cursor; a suspended delivery alerts."""
    sub = make_subscription(personas.alice, server, cursor="3", status="active")
    now = timezone.now()
    result = EventsSubscribeResult(
        id="sub_remote_x",
        refresh_before=(now + timedelta(seconds=90)).isoformat(),
        cursor="8",
        truncated=True,
        delivery_status=DeliveryStatus(active=False, lastError="http_4xx"),
    )
    assert (
        _apply_success(sub.id, result, kind="refresh", secret_sent=sub.secret, duration_ms=3)
        == "ok"
    )
    sub.refresh_from_db()
    assert sub.remote_id == "sub_remote_x" and sub.cursor == "8" and sub.truncated
    assert now + timedelta(seconds=55) < sub.next_refresh_at < now + timedelta(seconds=65)
    assert sub.delivery_status == {"active": False, "lastError": "http_4xx"}
    assert ReceivedEvent.objects.get(subscription=sub).kind == "gap"
    types = sorted(HostDelivery.objects.filter(stream=sub.id).values_list("type", flat=True))
    assert types == ["subscription.gap", "subscription.updated"]
    assert AuditEntry.objects.filter(kind="subscription.delivery_alert").exists()
    # The server had stopped delivering: shown as suspended, with the reason.
    assert sub.status == "suspended" and sub.last_error == "delivery_suspended"
    updated = HostDelivery.objects.get(stream=sub.id, type="subscription.updated")
    assert updated.body["data"]["status"] == "suspended"
    assert updated.body["data"]["reason"] == "delivery_suspended:http_4xx"


def test_a_suspended_subscription_is_active_again_when_deliveries_resume(personas, server):
    sub = make_subscription(personas.alice, server, cursor="3", status="suspended")
    sub.remote_id = "sub_remote"
    sub.save(update_fields=["remote_id"])
    answer = webhook_receive(
        token=sub.token,
        headers=(signed_event := signed(sub.secret, event_body("evt_back")))[0],
        body=signed_event[1],
    )
    assert answer.status == 200, answer.body
    sub.refresh_from_db()
    assert sub.status == "active" and sub.last_error == ""
    updated = HostDelivery.objects.filter(stream=sub.id, type="subscription.updated").get()
    assert updated.body["data"]["previous_status"] == "suspended"
    assert updated.body["data"]["reason"] == "delivery_resumed"

    # A refresh whose answer no longer says so lifts it too.
    again = make_subscription(
        personas.alice, server, arguments={"repo": "b"}, cursor="3", status="suspended"
    )
    result = EventsSubscribeResult(id="r2", refresh_before=None, cursor="4")
    _apply_success(again.id, result, kind="refresh", secret_sent=again.secret, duration_ms=1)
    again.refresh_from_db()
    assert again.status == "active"


def test_25_no_expiry_gets_a_health_refresh(personas, server, settings):
    """Case 25"""
    settings.SUBSCRIPTION_HEALTH_REFRESH = 3600
    sub = make_subscription(personas.alice, server, ttl_ms=None)
    result = EventsSubscribeResult(id="s", refresh_before=None, cursor=None)
    _apply_success(sub.id, result, kind="refresh", secret_sent=sub.secret, duration_ms=1)
    sub.refresh_from_db()
    assert sub.refresh_before is None
    assert (
        timezone.now() + timedelta(minutes=59)
        < sub.next_refresh_at
        < timezone.now() + timedelta(minutes=61)
    )


def test_a_secret_rotated_during_the_call_is_sent_right_after(personas, server):
    sub = make_subscription(personas.alice, server)
    result = EventsSubscribeResult(
        id="s", refresh_before=(timezone.now() + timedelta(hours=1)).isoformat()
    )
    _apply_success(sub.id, result, kind="refresh", secret_sent="whsec_old", duration_ms=1)
    assert Subscription.objects.get(pk=sub.pk).next_refresh_at <= timezone.now()


@pytest.mark.parametrize(
    "code, data, message, running, outcome, error",
    [
        (-32602, None, "Invalid", False, "failed", "invalid_params"),
        (-32011, {"kind": "event"}, "NotFound", True, "failed", "event_not_found"),
        (-32011, {"kind": "subscription"}, "NotFound", True, "retry", "subscription_not_found"),
        (-32012, {"reason": "access_revoked"}, "Forbidden", True, "terminated", "forbidden"),
        (-32012, None, "Forbidden", False, "failed", "forbidden"),
        (
            -32013,
            {"limit": "subscriptions"},
            "ResourceExhausted",
            True,
            "retry",
            "resource_exhausted",
        ),
        (
            -32014,
            {"feature": "deliveryMode", "value": "webhook"},
            "Unsupported",
            False,
            "failed",
            "unsupported_delivery_mode",
        ),
        (
            -32014,
            {"feature": "inputSchema", "reason": "schema_changed"},
            "Unsupported",
            True,
            "failed",
            "schema_changed",
        ),
        (-32014, None, "CursorExpired", True, "retry_from_now", "cursor_expired"),
        (
            -32015,
            {"reason": "challenge_failed"},
            "CallbackEndpointError",
            False,
            "retry",
            "challenge_failed",
        ),
        (
            -32015,
            {"reason": "insecure_url"},
            "Callback endpoint error",
            False,
            "retry",
            "insecure_url",
        ),
        (
            -32015,
            {"reason": "made_up"},
            "CallbackEndpointError",
            False,
            "retry",
            "connection_refused",
        ),
        (-32603, None, "Internal", True, "retry", "server_error"),
        (-32601, None, "Method not found", False, "failed", "events_not_offered"),
    ],
)
def test_the_error_table(code, data, message, running, outcome, error):
    """The table in the ChatGPT dialect's numbers; a SEP-3415 server's
    -32023…-32027 mean the same (shifted by 12), and each dialect's typed codes
    are unexpected from the other (case 52: logged, not mapped)."""
    exc = McpCallError("mcp_error", message, code=code, data=data)
    reaction = reaction_for(exc, running=running, dialect="chatgpt")
    assert (reaction.outcome, reaction.error) == (outcome, error)
    assert reaction.message
    if -32015 <= code <= -32011:
        sep_code = code - 12
        sep = reaction_for(
            McpCallError("mcp_error", message, code=sep_code, data=data),
            running=running,
            dialect="sep-3415",
        )
        assert (sep.outcome, sep.error) == (outcome, error)
        assert reaction_for(exc, running=running, dialect="sep-3415").error == "unexpected_error"
        wrong_way = McpCallError("mcp_error", message, code=sep_code, data=data)
        assert reaction_for(wrong_way, running=running, dialect="chatgpt").error == (
            "unexpected_error"
        )


@pytest.mark.parametrize(
    ("field", "mode", "run"),
    [
        ("next_poll_at", "poll", "subscription_poll_when_due"),
        ("next_refresh_at", "webhook", "subscription_refresh_when_due"),
    ],
)
def test_a_countdown_that_finds_the_row_busy_comes_back_soon(
    personas, server, settings, tasks_sent, django_capture_on_commit_callbacks, field, mode, run
):
    """Regression (CI, SQLite pass: a server refusing webhook delivery was
    moved to polling, and the first poll came 30 s later): the move's poll
    countdown took the due time while the refresh that moved it still held
    the row, found it busy, and left the due time a whole claim lease away."""
    from subscriptions.services import poll, refresh

    settings.SUBSCRIPTION_POLL_FLOOR = 1
    now = timezone.now()
    sub = make_subscription(personas.alice, server, mode=mode, status="active")
    Subscription.objects.filter(pk=sub.pk).update(
        **{field: now}, refresh_claimed_until=now + timedelta(minutes=1)
    )
    when_due = getattr(poll if mode == "poll" else refresh, run)
    with django_capture_on_commit_callbacks(execute=True):
        assert when_due(subscription_id=sub.id, due=now.isoformat()) == "busy"
    again = getattr(Subscription.objects.get(pk=sub.pk), field)
    assert again <= timezone.now() + timedelta(seconds=2), again
    sent = [(name, countdown) for name, _, countdown in tasks_sent]
    assert sent == [(f"subscriptions.{'poll' if mode == 'poll' else 'refresh'}_when_due", 1)]
