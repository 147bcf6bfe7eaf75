"""The client against the reference server speaking each dialect of
docs/events-client.md §8 (``python -m refserver --dialect …``): the same
webhook lifecycle works, and what differs is read the way each dialect means
it. Real processes: the reference server, daphne (our receiver), a worker."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from outbox.models import HostDelivery
from subscriptions.models import ReceiverWatch, Subscription
from switchboard.models import AuditEntry
from switchboard.services.servers import server_register
from tests.live import start_refserver
from tests.subscriptions.support import SYSTEM, approve_events, wait_for

pytestmark = pytest.mark.processes


@pytest.fixture(scope="module", params=["sep-3415", "chatgpt"])
def dialect_server(request):
    supervisor, server = start_refserver(
        ["--min-ttl-ms", "500", "--dialect", request.param], name=f"refserver-{request.param}"
    )
    try:
        yield request.param, server
    finally:
        supervisor.stop_all()


@pytest.fixture
def subscribed(live, tpersonas, dialect_server, host_receiver):
    dialect, refserver = dialect_server
    refserver.reset()
    server = server_register(
        host=tpersonas.acme, name=f"Ref {dialect}", url=refserver.mcp_url, actor=SYSTEM
    )
    approve_events(tpersonas.alice, server, ["build.finished"])
    answer = tpersonas.acme_api.put("/host/endpoint", json={"url": host_receiver.url})
    host_receiver.secret = answer.json()["secret"]
    created = tpersonas.acme_api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": server.id,
            "event": "build.finished",
            "arguments": {"repo": "acme/app"},
        },
    )
    assert created.status_code == 201, created.content
    sub = wait_for(
        lambda: Subscription.objects.filter(pk=created.json()["id"], status="active").first(),
        timeout=30,
        message="active",
    )
    return dialect, refserver, server, sub


def test_the_webhook_lifecycle_in_each_dialect(subscribed, tpersonas, host_receiver):
    dialect, refserver, server, sub = subscribed
    assert server.events_dialect == dialect
    api = tpersonas.acme_api
    assert api.get(f"/servers/{server.id}").json()["capabilities"]["events"]["dialect"] == dialect
    assert sub.remote_id and sub.verified_at  # the challenge was answered

    emitted = refserver.control(
        "POST", "emit", {"name": "build.finished", "data": {"repo": "acme/app", "status": "ok"}}
    )
    got = wait_for(lambda: host_receiver.accepted("event.received"), message="forwarded")
    assert got[0]["data"]["event"]["eventId"] == emitted["eventId"] and not host_receiver.rejected

    # A refresh (rotation): the SEP server tags its result resultType
    # "complete", the ChatGPT one sends none; both are complete.
    before = sub.last_refreshed_at
    assert api.post(f"/subscriptions/{sub.id}/rotate-secret").status_code == 200
    wait_for(
        lambda: Subscription.objects.get(pk=sub.id).last_refreshed_at != before,
        message="refreshed",
    )
    subscribes = refserver.control("GET", "received?kinds=subscribe")["subscribe"]
    assert all(s["delivery"]["mode"] == "webhook" for s in subscribes)
    assert all(isinstance(s["ttlMs"], int) and s["ttlMs"] > 0 for s in subscribes)

    answer = api.delete(f"/subscriptions/{sub.id}").json()
    assert answer["unsubscribe"]["state"] == "done", answer
    (unsubscribe,) = refserver.control("GET", "received?kinds=unsubscribe")["unsubscribe"]
    assert unsubscribe["delivery"]["mode"] == "webhook"  # the ChatGPT dialect insists on it
    assert refserver.control("GET", "subscriptions")["subscriptions"] == []


def test_a_termination_is_read_in_the_dialect_it_came_in(subscribed):
    dialect, refserver, server, sub = subscribed
    refserver.control("POST", "terminate", {"id": sub.remote_id})
    if dialect == "chatgpt":
        # No `terminated` envelope in this dialect: the server just forgets it,
        # and the next refresh finds out (NotFound → subscribe again).
        Subscription.objects.filter(pk=sub.pk).update(next_refresh_at=sub.created_at)
        wait_for(
            lambda: refserver.control("GET", "subscriptions")["subscriptions"],
            timeout=30,
            message="subscribed again",
        )
        assert Subscription.objects.get(pk=sub.pk).status == "active"
        return
    # SEP-3415 numbers Forbidden -32024: read as Forbidden, not as unexpected.
    ended = wait_for(
        lambda: Subscription.objects.filter(pk=sub.pk, status="terminated").first(),
        message="terminated",
    )
    assert ended.last_error == "forbidden"
    assert not AuditEntry.objects.filter(kind="server.dialect_changed").exists()


def test_53_a_result_that_did_not_complete_is_a_failed_call_and_nothing_is_kept(
    subscribed, tpersonas
):
    """``resultType: "input_required"`` on events/subscribe: the call failed;
    no refreshBefore, cursor or id from it is persisted."""
    dialect, refserver, server, sub = subscribed
    refserver.control("POST", "behaviour", {"method": "events/subscribe", "fail": "input_required"})
    kept = Subscription.objects.get(pk=sub.pk)
    Subscription.objects.filter(pk=sub.pk).update(next_refresh_at=sub.created_at)
    attempt = wait_for(
        lambda: sub.refreshes.filter(ok=False).first(), timeout=30, message="a failed refresh"
    )
    assert attempt.error_category == "protocol" and "input_required" in attempt.message
    now = Subscription.objects.get(pk=sub.pk)
    assert (now.remote_id, now.refresh_before, now.cursor) == (
        kept.remote_id,
        kept.refresh_before,
        kept.cursor,
    )
    assert now.status == "active"  # retried later, not ended


def test_52_an_event_type_the_server_drops_ends_the_subscription_and_is_listed_again(
    subscribed,
):
    """The server removes the type and ends its subscriptions with NotFound
    ``kind: event`` (-32023 on SEP-3415, -32011 in the sketch numbering; a
    ChatGPT-dialect server just forgets it). We mark it failed and list the
    server's event types again."""
    dialect, refserver, server, sub = subscribed
    types = refserver.control("GET", "event-types")["types"]
    refserver.control(
        "POST", "event-types", {"types": [t for t in types if t["name"] != "build.finished"]}
    )
    if dialect == "chatgpt":
        Subscription.objects.filter(pk=sub.pk).update(next_refresh_at=sub.created_at)
    ended = wait_for(
        lambda: Subscription.objects.filter(pk=sub.pk, status__in=["failed", "terminated"]).first(),
        timeout=30,
        message="ended",
    )
    # ChatGPT: its refresh answers -32602 "Unknown event name", its NotFound.
    assert ended.last_error == "event_not_found", ended.last_error_message
    wait_for(
        lambda: server.event_types.filter(name="build.finished", removed_at__isnull=False).exists(),
        timeout=30,
        message="listed again",
    )


def test_58_the_first_subscribe_sends_mode_a_positive_ttl_and_a_null_cursor(subscribed):
    """And the refresh is scheduled from the refreshBefore the server granted
    (whatever clamp it applied), before it runs out."""
    dialect, refserver, server, sub = subscribed
    (first,) = refserver.control("GET", "received?kinds=subscribe")["subscribe"][:1]
    assert first["delivery"]["mode"] == "webhook"
    assert isinstance(first["ttlMs"], int) and first["ttlMs"] > 0
    assert "cursor" in first and first["cursor"] is None
    granted = Subscription.objects.get(pk=sub.pk)
    assert granted.refresh_before is not None and granted.last_refreshed_at is not None
    lifetime = granted.refresh_before - granted.last_refreshed_at
    until_refresh = granted.next_refresh_at - granted.last_refreshed_at
    assert lifetime * 0.5 <= until_refresh <= lifetime * 0.7  # 50-70 %: docs/events-client.md §5


def test_a_receiver_silent_past_the_retry_window_resubscribes_from_the_cursor_once(
    subscribed, host_receiver
):
    """The receiver (or the workers) were down for longer than the server
    retries: events may be lost upstream. The next probe re-subscribes from
    the cursor we hold and tells the host once (reason possible_gap)."""
    dialect, refserver, server, sub = subscribed
    refserver.control(
        "POST", "emit", {"name": "build.finished", "data": {"repo": "acme/app", "status": "ok"}}
    )
    wait_for(lambda: host_receiver.accepted("event.received"), message="an event first")
    held_cursor = Subscription.objects.get(pk=sub.pk).cursor
    subscribes_before = len(refserver.control("GET", "received?kinds=subscribe")["subscribe"])

    # The last time the probe saw the receiver answer: five hours ago.
    ReceiverWatch.objects.update_or_create(
        pk=1, defaults={"last_seen_up_at": timezone.now() - timedelta(hours=5)}
    )
    gaps = wait_for(
        lambda: host_receiver.accepted("subscription.gap"), timeout=30, message="possible gap"
    )
    assert gaps[0]["data"]["reason"] == "possible_gap"
    assert gaps[0]["data"]["subscription_id"] == sub.id
    assert gaps[0]["data"]["cursor"] == held_cursor
    resubscribed = wait_for(
        lambda: refserver.control("GET", "received?kinds=subscribe")["subscribe"][
            subscribes_before:
        ],
        timeout=30,
        message="re-subscribed",
    )
    assert resubscribed[0]["cursor"] == held_cursor  # from the cursor we hold
    # Two more probes see the receiver answering: the outage is told once.
    for _ in range(2):
        seen = ReceiverWatch.objects.get(pk=1).last_seen_up_at
        wait_for(
            lambda seen=seen: ReceiverWatch.objects.get(pk=1).last_seen_up_at > seen,
            message="another probe",
        )
    gap_rows = HostDelivery.objects.filter(stream=sub.id, type="subscription.gap")
    assert gap_rows.count() == 1
    assert ReceiverWatch.objects.get(pk=1).last_outage_seconds > 4 * 3600
