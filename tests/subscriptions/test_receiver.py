"""The webhook receiver against the conformance cases of docs/conformance.md
that apply to webhook delivery (numbers in the test names' docstrings)."""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from datetime import timedelta

import pytest
from django.db import OperationalError, connection
from django.utils import timezone

from outbox.models import DeliveryStatus, HostDelivery
from outbox.signing import webhook_secret_new
from subscriptions.models import ReceivedEvent, Subscription, SubscriptionStatus
from subscriptions.services import webhook_receive
from tests.subscriptions.support import event_body, make_event_server, make_subscription, signed


@pytest.fixture
def server(personas):
    return make_event_server(personas.acme)


@pytest.fixture
def sub(personas, server):
    return make_subscription(personas.alice, server, remote_id="sub_remote")


def receive(sub, headers, raw):
    return webhook_receive(token=sub.token, headers=headers, body=raw)


def nothing_stored():
    return ReceivedEvent.objects.count() == 0 and HostDelivery.objects.count() == 0


def test_1_a_validly_signed_event_is_stored_once_with_its_forwarding_work(sub):
    """Case 1"""
    headers, raw = signed(sub.secret, event_body("evt_a", cursor="7", repo="acme/app"))
    answer = receive(sub, headers, raw)
    assert answer.status == 200
    stored = ReceivedEvent.objects.get()
    assert (stored.event_id, stored.webhook_id, stored.cursor) == ("evt_a", "msg_1", "7")
    delivery = HostDelivery.objects.get()
    assert delivery.type == "event.received"
    assert delivery.status == DeliveryStatus.NO_ENDPOINT  # recorded even without an endpoint
    assert delivery.body["data"]["subscription_id"] == sub.id
    assert delivery.body["data"]["user"] == "alice"
    assert delivery.body["data"]["event"]["eventId"] == "evt_a"
    assert delivery.body["data"]["event"]["data"] == {"repo": "acme/app"}
    sub.refresh_from_db()
    assert sub.cursor == "7" and sub.last_event_at is not None


def test_2_a_signature_over_reserialized_json_is_refused(sub):
    """Case 2: the server signed different bytes (other key order) than it sent."""
    body = event_body("evt_b")
    headers, _ = signed(sub.secret, json.dumps(body, sort_keys=False))
    reordered = json.dumps(dict(reversed(list(body.items())))).encode()
    answer = receive(sub, headers, reordered)
    assert answer.status == 401
    assert nothing_stored()


def test_3_one_good_signature_among_bad_ones_is_enough(sub):
    """Case 3"""
    headers, raw = signed(sub.secret, event_body("evt_c"))
    headers["webhook-signature"] = "v1,bad " + headers["webhook-signature"]
    assert receive(sub, headers, raw).status == 200


def test_4_only_an_asymmetric_signature_is_refused(sub):
    """Case 4"""
    headers, raw = signed(sub.secret, event_body("evt_d"))
    headers["webhook-signature"] = "v1a," + base64.b64encode(b"x" * 64).decode()
    assert receive(sub, headers, raw).status == 401
    assert nothing_stored()


@pytest.mark.parametrize("offset", [-301, 600])
def test_5_6_a_stale_or_future_timestamp_is_refused(sub, offset):
    """Case 5, case 6"""
    headers, raw = signed(sub.secret, event_body("evt_e"), at=time.time() + offset)
    answer = receive(sub, headers, raw)
    assert answer.status == 400
    assert answer.body["error"]["code"] == "stale_timestamp"
    assert nothing_stored()


@pytest.mark.parametrize(
    "missing", ["webhook-timestamp", "webhook-id", "webhook-signature", "x-mcp-subscription-id"]
)
def test_7_a_missing_header_is_refused(sub, missing):
    """Case 7"""
    headers, raw = signed(sub.secret, event_body("evt_f"))
    del headers[missing]
    assert receive(sub, headers, raw).status == 400
    assert nothing_stored()


def test_a_malformed_timestamp_is_refused(sub):
    headers, raw = signed(sub.secret, event_body("evt_f"))
    headers["webhook-timestamp"] = "yesterday"
    assert receive(sub, headers, raw).status == 400


def test_8_a_replayed_delivery_is_acknowledged_but_not_stored_or_forwarded_twice(sub):
    """Case 8"""
    headers, raw = signed(sub.secret, event_body("evt_g"), webhook_id="msg_same")
    assert receive(sub, headers, raw).status == 200
    again = receive(sub, headers, raw)
    assert again.status == 200 and again.body == {"status": "duplicate"}
    assert ReceivedEvent.objects.count() == 1
    assert HostDelivery.objects.count() == 1


def test_9_the_same_event_under_a_new_webhook_id_is_deduplicated(sub):
    """Case 9"""
    body = event_body("evt_h")
    assert receive(sub, *signed(sub.secret, body, webhook_id="msg_one")).status == 200
    assert receive(sub, *signed(sub.secret, body, webhook_id="msg_two")).status == 200
    assert ReceivedEvent.objects.count() == 1
    assert HostDelivery.objects.count() == 1


def test_10_an_unknown_server_subscription_id_is_not_routable_yet(sub):
    """Case 10"""
    headers, raw = signed(sub.secret, event_body("evt_i"), subscription_id="sub_other")
    answer = receive(sub, headers, raw)
    assert answer.status == 503
    assert "Retry-After" in answer.headers
    assert nothing_stored()


@pytest.mark.parametrize(
    "status",
    [
        SubscriptionStatus.REVOKED,
        SubscriptionStatus.TERMINATED,
        SubscriptionStatus.FAILED,
        SubscriptionStatus.PENDING_CONSENT,
    ],
)
def test_11_an_ended_subscription_answers_gone(personas, server, status):
    """Case 11"""
    ended = make_subscription(personas.alice, server, status=status, remote_id="sub_remote")
    assert receive(ended, *signed(ended.secret, event_body("evt_j"))).status == 410
    assert nothing_stored()


def test_an_unknown_token_is_not_found(sub):
    headers, raw = signed(sub.secret, event_body("evt_k"))
    assert webhook_receive(token="nope", headers=headers, body=raw).status == 404
    assert nothing_stored()


def test_12_an_oversized_body_is_refused_before_verification(sub, settings):
    """Case 12 (the ASGI middleware refuses it unread; see test_receiver_http)."""
    raw = b'{"x":"' + b"a" * (300 * 1024) + b'"}'
    answer = receive(sub, {}, raw)
    assert answer.status == 413
    assert nothing_stored()


def test_malformed_json_is_refused_after_the_signature(sub):
    headers, raw = signed(sub.secret, "{not json")
    assert receive(sub, headers, raw).status == 400
    headers, raw = signed(sub.secret, "[1,2]")
    assert receive(sub, headers, raw).status == 400
    headers, raw = signed(sub.secret, {"eventId": "x", "name": "other.type", "data": {}})
    assert receive(sub, headers, raw).status == 400
    assert nothing_stored()


def _fail_event_inserts(execute, sql, params, many, context):
    # Any statement that inserts an event: the ORM's INSERT, or on PostgreSQL
    # the one statement whose first part it is (WITH stored AS (INSERT ...)).
    if re.search(r'\bINSERT INTO "?\w*receivedevent', sql, re.IGNORECASE):
        raise OperationalError("disk full (injected)")
    return execute(sql, params, many, context)


def test_13_a_storage_failure_answers_5xx_never_2xx(sub):
    """Case 13"""
    headers, raw = signed(sub.secret, event_body("evt_l"))
    with connection.execute_wrapper(_fail_event_inserts):
        answer = receive(sub, headers, raw)
    assert answer.status == 503
    assert nothing_stored()


def test_14_the_verification_challenge_is_echoed_while_the_id_is_unknown(personas, server):
    """Case 14: the subscribe call is in flight; only the pending secret exists."""
    pending = make_subscription(personas.alice, server, status=SubscriptionStatus.PENDING)
    headers, raw = signed(
        pending.secret,
        {"type": "verification", "challenge": "nonce-123"},
        webhook_id="msg_verification_1",
        subscription_id="sub_from_server",
    )
    answer = receive(pending, headers, raw)
    assert answer.status == 200 and answer.body == {"challenge": "nonce-123"}
    pending.refresh_from_db()
    assert pending.remote_id == "sub_from_server" and pending.verified_at is not None
    assert nothing_stored()


def test_15_a_badly_signed_challenge_is_not_echoed(personas, server):
    """Case 15"""
    pending = make_subscription(personas.alice, server, status=SubscriptionStatus.PENDING)
    headers, raw = signed(webhook_secret_new(), {"type": "verification", "challenge": "nonce"})
    answer = receive(pending, headers, raw)
    assert answer.status == 401
    assert "nonce" not in json.dumps(answer.body)


def test_16_a_gap_persists_the_cursor_flags_truncation_and_is_forwarded(sub):
    """Case 16"""
    headers, raw = signed(sub.secret, {"type": "gap", "cursor": "42"}, webhook_id="msg_gap_1")
    assert receive(sub, headers, raw).status == 200
    sub.refresh_from_db()
    assert sub.cursor == "42" and sub.truncated and sub.last_gap_at
    assert HostDelivery.objects.get().body["data"] == {
        "subscription_id": sub.id,
        "user": "alice",
        "server": sub.server_id,
        "cursor": "42",
    }
    assert HostDelivery.objects.get().type == "subscription.gap"


def test_17_a_termination_ends_the_subscription_and_notifies_the_host(sub):
    """Case 17"""
    sub.next_refresh_at = timezone.now()
    sub.save()
    body = {
        "type": "terminated",
        "error": {"code": -32012, "message": "Forbidden", "data": {"reason": "access_revoked"}},
    }
    assert receive(sub, *signed(sub.secret, body, webhook_id="msg_terminated_1")).status == 200
    sub.refresh_from_db()
    assert sub.status == SubscriptionStatus.TERMINATED
    assert sub.next_refresh_at is None
    assert sub.last_error == "forbidden"
    notice = HostDelivery.objects.get(type="subscription.updated")
    assert notice.body["data"]["status"] == "terminated"
    assert notice.body["data"]["previous_status"] == "active"
    # Later deliveries are refused.
    assert receive(sub, *signed(sub.secret, event_body("evt_m"))).status == 410


def test_18_19_the_old_secret_verifies_during_the_rotation_grace_only(sub):
    """Case 18, case 19"""
    old = sub.secret
    sub.previous_secret_encrypted = sub.secret_encrypted
    sub.previous_secret_until = timezone.now() + timedelta(minutes=5)
    sub.secret = webhook_secret_new()
    sub.save()
    assert receive(sub, *signed(old, event_body("evt_n"), webhook_id="m1")).status == 200
    sub.previous_secret_until = timezone.now() - timedelta(seconds=1)
    sub.save()
    assert receive(sub, *signed(old, event_body("evt_o"), webhook_id="m2")).status == 401
    assert receive(sub, *signed(sub.secret, event_body("evt_p"), webhook_id="m3")).status == 200


def test_21_a_legacy_signature_alone_is_refused(sub):
    """Case 21: downgrade guard."""
    headers, raw = signed(sub.secret, event_body("evt_q"))
    del headers["webhook-signature"]
    headers["x-mcp-signature"] = "sha256=" + "0" * 64
    headers["x-mcp-timestamp"] = headers["webhook-timestamp"]
    assert receive(sub, headers, raw).status == 401
    assert nothing_stored()


def test_22_secrets_are_whsec_base64_of_32_random_bytes_and_unique():
    """Case 22"""
    drawn = {webhook_secret_new() for _ in range(1000)}
    assert len(drawn) == 1000
    for secret in list(drawn)[:50]:
        assert re.fullmatch(r"whsec_[A-Za-z0-9+/=]+", secret)
        assert len(base64.b64decode(secret.removeprefix("whsec_"))) == 32


def test_an_older_retried_event_never_moves_the_cursor_back(sub):
    newer = event_body("evt_new", cursor="9")
    older = event_body("evt_old", cursor="5")
    older["timestamp"] = "2020-01-01T00:00:00Z"
    assert receive(sub, *signed(sub.secret, newer, webhook_id="a")).status == 200
    assert receive(sub, *signed(sub.secret, older, webhook_id="b")).status == 200
    sub.refresh_from_db()
    assert sub.cursor == "9"


def test_a_null_cursor_is_never_persisted(sub):
    sub.cursor = "3"
    sub.save()
    assert receive(sub, *signed(sub.secret, event_body("evt_r", cursor=None))).status == 200
    sub.refresh_from_db()
    assert sub.cursor == "3"


def test_events_of_a_paused_subscription_are_held(personas, server):
    paused = make_subscription(
        personas.alice,
        server,
        status=SubscriptionStatus.PAUSED,
        paused_at=timezone.now(),
        remote_id="sub_remote",
    )
    assert receive(paused, *signed(paused.secret, event_body("evt_t"))).status == 200
    assert HostDelivery.objects.get().status == DeliveryStatus.HELD


@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicates_are_stored_and_forwarded_once(personas, server):
    sub = make_subscription(personas.alice, server, remote_id="sub_remote")
    headers, raw = signed(sub.secret, event_body("evt_u"), webhook_id="msg_race")
    barrier = threading.Barrier(6)
    answers = []

    def deliver():
        barrier.wait()
        try:
            answers.append(webhook_receive(token=sub.token, headers=headers, body=raw).status)
        finally:
            connection.close()

    threads = [threading.Thread(target=deliver) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [200] * 6
    assert ReceivedEvent.objects.filter(subscription=sub).count() == 1
    assert HostDelivery.objects.filter(stream=sub.id).count() == 1
    assert Subscription.objects.get(pk=sub.pk).status == SubscriptionStatus.ACTIVE
