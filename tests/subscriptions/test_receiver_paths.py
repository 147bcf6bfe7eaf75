"""The webhook receiver's two ways of storing an event write the same rows:
on PostgreSQL the one statement (``receiver.sql.event_store``, with the
outbox's INSERT composed into it), and the transaction through the ORM
(SQLite, and a suspended subscription everywhere). On SQLite both runs take
the transaction, and the test still pins what it writes."""

from __future__ import annotations

import pytest
from django.utils import timezone

from outbox.models import HostDelivery, HostEndpoint
from subscriptions.models import ReceivedEvent, Subscription
from subscriptions.services import webhook_receive
from subscriptions.services.receiver import events as receiver_events
from tests.subscriptions.support import event_body, make_event_server, make_subscription, signed


@pytest.fixture
def server(personas):
    HostEndpoint.objects.create(
        host=personas.acme, url="https://host.example.test/hook", secret_encrypted="unused"
    )
    return make_event_server(personas.acme)


def _deliver(sub, event_id: str, webhook_id: str):
    headers, raw = signed(sub.secret, event_body(event_id, cursor=event_id), webhook_id=webhook_id)
    return webhook_receive(token=sub.token, headers=headers, body=raw)


def _written(sub: Subscription) -> dict:
    """What the deliveries left, without what differs by nature (ids, times)."""
    row = Subscription.objects.get(pk=sub.pk)
    deliveries = []
    for d in HostDelivery.objects.filter(stream=sub.id).order_by("seq"):
        body = dict(d.body)
        assert body.pop("timestamp") and d.created_at is not None
        assert body["data"].pop("subscription_id") == sub.id
        assert body["data"].pop("user") == sub.user.external_id
        assert body["data"]["event"].pop("timestamp")  # the server's, as sent
        due = (d.next_attempt_at is not None, d.enqueued_at is not None)
        deliveries.append((d.type, d.status, d.host_id, d.attempts, due, body))
    return {
        "deliveries": deliveries,
        "events": [
            (e.kind, e.webhook_id, e.event_id, e.cursor, e.digest_state, e.body["data"])
            for e in ReceivedEvent.objects.filter(subscription=sub).order_by("id")
        ],
        "cursor": row.cursor,
        "filtered_count": row.filtered_count,
        "last_event": row.last_event_at is not None,
        "remote_id": row.remote_id,
    }


def test_the_one_statement_and_the_transaction_write_the_same_rows(personas, server, monkeypatch):
    native = receiver_events.one_statement_available
    results = []
    for user, available in ((personas.alice, lambda: False), (personas.bob, native)):
        monkeypatch.setattr(receiver_events, "one_statement_available", available)
        live = make_subscription(user, server, remote_id="sub_remote")
        paused = make_subscription(
            user,
            server,
            arguments={"repo": "acme/paused"},
            remote_id="sub_remote",
            paused_at=timezone.now(),
        )
        filtered = make_subscription(
            user,
            server,
            arguments={"repo": "acme/other"},
            remote_id="sub_remote",
            filter={"event_types": ["deploy.*"]},
        )
        answers = [
            _deliver(live, "evt_1", "msg_1").body,
            _deliver(live, "evt_1", "msg_2").body,  # the same event again: a duplicate
            _deliver(live, "evt_2", "msg_3").body,
            _deliver(paused, "evt_3", "msg_4").body,
            _deliver(filtered, "evt_4", "msg_5").body,
        ]
        results.append(
            {"answers": answers, "rows": [_written(s) for s in (live, paused, filtered)]}
        )
    transaction, native_path = results
    assert transaction["answers"][1] == {"status": "duplicate"}
    live_rows, paused_rows, filtered_rows = transaction["rows"]
    assert [d[1] for d in live_rows["deliveries"]] == ["pending", "pending"]
    assert live_rows["cursor"] == "evt_2"
    assert [d[1] for d in paused_rows["deliveries"]] == ["held"]
    assert filtered_rows["deliveries"] == [] and filtered_rows["filtered_count"] == 1
    assert native_path == transaction
