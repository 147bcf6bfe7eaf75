"""Conformance cases 50-60 (docs/conformance.md) for the receiver, each a
test named after its number (50-53 and 58 live with the dialect tests:
tests/servers/test_dialects.py, tests/subscriptions/test_dialects_live.py,
tests/thirdparty/; 59 with the session worker's listen stream:
tests/servers/test_listen_live.py)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from outbox.models import HostDelivery
from subscriptions.models import ReceivedEvent, Subscription, SubscriptionStatus
from subscriptions.services import subscription_rotate_secret, webhook_receive
from switchboard.models import McpServer
from tests.subscriptions.support import (
    SYSTEM,
    event_body,
    make_event_server,
    make_subscription,
    signed,
)


@pytest.fixture
def server(personas):
    return make_event_server(personas.acme)


def receive(sub, headers, raw):
    return webhook_receive(token=sub.token, headers=headers, body=raw)


def challenge(secret, *, nonce="nonce-1", subscription_id="sub_remote", webhook_id="msg_v"):
    return signed(
        secret,
        {"type": "verification", "challenge": nonce},
        webhook_id=webhook_id,
        subscription_id=subscription_id,
    )


def test_54_a_challenge_signed_with_the_pending_secret_of_a_rotation_is_echoed(personas, server):
    sub = make_subscription(personas.alice, server, remote_id="sub_remote")
    old = sub.secret
    subscription_rotate_secret(subscription=sub, actor=SYSTEM)
    sub.refresh_from_db()
    assert sub.secret != old
    # The rotating refresh's challenge comes signed with the new secret ...
    answer = receive(sub, *challenge(sub.secret, nonce="rotating"))
    assert (answer.status, answer.body) == (200, {"challenge": "rotating"})
    # ... and one with the old secret still verifies during the grace window.
    assert receive(sub, *challenge(old, nonce="old", webhook_id="msg_v2")).status == 200


def test_54_a_challenge_long_after_the_last_subscribe_is_echoed(personas, server):
    sub = make_subscription(personas.alice, server, remote_id="sub_remote")
    long_ago = timezone.now() - timezone.timedelta(hours=25)
    Subscription.objects.filter(pk=sub.pk).update(verified_at=long_ago, last_refreshed_at=long_ago)
    answer = receive(sub, *challenge(sub.secret, nonce="again"))
    assert (answer.status, answer.body) == (200, {"challenge": "again"})


def test_55_the_challenge_binds_the_id_and_the_next_event_is_stored(personas, server):
    pending = make_subscription(personas.alice, server, status=SubscriptionStatus.PENDING)
    # Before anything told us its id, an event waits (the server retries).
    early = receive(pending, *signed(pending.secret, event_body("evt_0"), subscription_id="s1"))
    assert early.status == 503 and early.headers["Retry-After"]
    answer = receive(pending, *challenge(pending.secret, subscription_id="s1"))
    assert answer.status == 200 and answer.body == {"challenge": "nonce-1"}
    pending.refresh_from_db()
    assert pending.remote_id == "s1"
    assert (
        receive(pending, *signed(pending.secret, event_body("evt_1"), subscription_id="s1")).status
        == 200
    )
    assert ReceivedEvent.objects.filter(subscription=pending, event_id="evt_1").exists()
    # Another id is not ours (yet): 503, not stored.
    other = receive(pending, *signed(pending.secret, event_body("evt_2"), subscription_id="s2"))
    assert other.status == 503
    assert not ReceivedEvent.objects.filter(event_id="evt_2").exists()


def test_56_verification_is_consumed_while_gap_and_terminated_are_forwarded(personas, server):
    sub = make_subscription(personas.alice, server, remote_id="sub_remote")
    assert receive(sub, *challenge(sub.secret)).status == 200
    assert not HostDelivery.objects.exists() and not ReceivedEvent.objects.exists()
    assert (
        receive(sub, *signed(sub.secret, {"type": "gap", "cursor": "9"}, webhook_id="g")).status
        == 200
    )
    terminated = {"type": "terminated", "error": {"code": -32012, "message": "Forbidden"}}
    assert receive(sub, *signed(sub.secret, terminated, webhook_id="t")).status == 200
    types = list(HostDelivery.objects.order_by("seq").values_list("type", flat=True))
    assert types[0] == "subscription.gap" and "subscription.updated" in types


def test_56_an_unknown_control_envelope_is_accepted_kept_and_forwarded_as_it_came(personas, server):
    sub = make_subscription(personas.alice, server, remote_id="sub_remote")
    envelope = {"type": "paused_by_server", "until": "2030-01-01T00:00:00Z"}
    answer = receive(sub, *signed(sub.secret, envelope, webhook_id="msg_ctl"))
    assert answer.status == 200
    stored = ReceivedEvent.objects.get(subscription=sub)
    assert stored.kind == "control" and stored.body == envelope
    forwarded = HostDelivery.objects.get(type="subscription.control")
    assert forwarded.body["data"]["envelope"] == envelope
    assert forwarded.body["data"]["subscription_id"] == sub.id
    again = receive(sub, *signed(sub.secret, envelope, webhook_id="msg_ctl"))
    assert again.status == 200 and again.body == {"status": "duplicate"}
    assert HostDelivery.objects.filter(type="subscription.control").count() == 1


def test_57_a_duplicate_is_answered_2xx_never_410(personas, server):
    sub = make_subscription(personas.alice, server, remote_id="sub_remote")
    first = receive(sub, *signed(sub.secret, event_body("evt_dup")))
    late = receive(sub, *signed(sub.secret, event_body("evt_dup"), webhook_id="msg_retry"))
    assert first.status == 200 and late.status == 200 and late.body == {"status": "duplicate"}


@pytest.mark.parametrize(("dialect", "asks_again"), [("sep-3415", True), ("chatgpt", False)])
def test_57_a_tombstoned_id_gets_410_and_a_sep_server_is_asked_to_unsubscribe_again(
    personas, server, dialect, asks_again
):
    McpServer.objects.filter(pk=server.pk).update(
        events_dialect_detected=dialect, events_dialect_confirmed=True
    )
    ended = make_subscription(
        personas.alice, server, status=SubscriptionStatus.REVOKED, remote_id="sub_remote"
    )
    Subscription.objects.filter(pk=ended.pk).update(unsubscribe_state="done")
    answer = receive(ended, *signed(ended.secret, event_body("evt_late")))
    assert answer.status == 410
    ended.refresh_from_db()
    # On a SEP server a 410 drops only that delivery: ask it to unsubscribe
    # again. On a ChatGPT server the 410 itself ends the subscription.
    assert (ended.unsubscribe_state == "pending") is asks_again
    assert not ReceivedEvent.objects.exists()


def test_60_a_webhook_id_that_differs_from_the_event_id_is_accepted_and_deduplicated_on_it(
    personas, server
):
    sub = make_subscription(personas.alice, server, remote_id="sub_remote")
    assert receive(sub, *signed(sub.secret, event_body("evt_60"), webhook_id="msg_a")).status == 200
    # The same event again under another webhook-id (a per-message id): a duplicate.
    again = receive(sub, *signed(sub.secret, event_body("evt_60"), webhook_id="msg_b"))
    assert again.body == {"status": "duplicate"}
    # Another event that happens to reuse a webhook-id is still a new event.
    other = receive(sub, *signed(sub.secret, event_body("evt_61"), webhook_id="msg_a"))
    assert other.status == 200 and other.body == {"status": "accepted"}
    assert sorted(ReceivedEvent.objects.values_list("event_id", flat=True)) == ["evt_60", "evt_61"]


def test_51_a_chatgpt_callback_error_is_a_callback_error_retried_with_backoff():
    from subscriptions.services.remote import already_gone, reaction_for
    from switchboard.mcp import McpCallError

    insecure = McpCallError(
        "mcp_error", "Callback endpoint error", code=-32015, data={"reason": "insecure_url"}
    )
    reaction = reaction_for(insecure, running=False, dialect="chatgpt")
    assert (reaction.outcome, reaction.error) == ("retry", "insecure_url")  # backoff, no loop
    unknown = McpCallError("mcp_error", "Unknown event name", code=-32602)
    assert already_gone(unknown, dialect="chatgpt")  # on unsubscribe: success
    assert not already_gone(unknown, dialect="sep-3415")  # only that dialect says it so


def test_52_sep_error_codes_read_as_sep_and_a_legacy_code_is_not_guessed():
    from subscriptions.services.remote import reaction_for
    from switchboard.mcp import McpCallError

    gone_type = McpCallError("mcp_error", "NotFound", code=-32023, data={"kind": "event"})
    assert reaction_for(gone_type, running=True, dialect="sep-3415").error == "event_not_found"
    forbidden = McpCallError("mcp_error", "Forbidden", code=-32024, data={"reason": "revoked"})
    assert reaction_for(forbidden, running=True, dialect="sep-3415").outcome == "terminated"
    legacy = McpCallError("mcp_error", "NotFound", code=-32011, data={"kind": "event"})
    assert reaction_for(legacy, running=True, dialect="sep-3415").error == "unexpected_error"


def test_core_errors_of_2026_are_read_the_same_in_both_dialects():
    """-32021 names what the server needs (our events declaration is always
    sent, so anything else is a capability we do not have); -32022 means the
    server's versions changed: retried after discovering them again."""
    from subscriptions.services.remote import reaction_for
    from switchboard.mcp import McpCallError

    for dialect in ("sep-3415", "chatgpt"):
        missing = McpCallError(
            "mcp_error",
            "Missing capability",
            code=-32021,
            data={"requiredCapabilities": {"extensions": {"com.example/x": {}}}},
        )
        reaction = reaction_for(missing, running=False, dialect=dialect)
        assert (reaction.outcome, reaction.error) == ("failed", "missing_client_capability")
        assert "com.example/x" in reaction.message
        version = McpCallError("mcp_error", "Unsupported protocol version", code=-32022)
        assert reaction_for(version, running=True, dialect=dialect).error == (
            "unsupported_protocol_version"
        )
