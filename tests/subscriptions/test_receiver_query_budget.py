"""The webhook receiver's round trips per delivery (bench/README.md, *Webhook receiver*), as a server
sends them: on PostgreSQL an accepted event is two statements, the token
lookup and the one statement that stores the event, moves the cursor and
writes the outbox row (no BEGIN or COMMIT: one statement is atomic alone);
a duplicate is the same two. SQLite has no data-modifying CTEs: there the
event takes a transaction (lookup, BEGIN, event, cursor, outbox row,
COMMIT). The Celery publish is off the request's thread, handed to the
process's publisher.

Transactional tests, so BEGIN and COMMIT are counted where they happen, as
in production (autocommit, no request transaction)."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from outbox.models import DeliveryStatus, HostDelivery, HostEndpoint
from outbox.publish import publisher
from subscriptions.models import DigestState, ReceivedEvent, Subscription, SubscriptionStatus
from subscriptions.services import webhook_receive
from subscriptions.services.channels import channel_parse
from tests.subscriptions.support import event_body, make_event_server, make_subscription, signed

pytestmark = pytest.mark.django_db(transaction=True)

# (accepted, duplicate) statements per delivery.
BUDGET = {"postgresql": (2, 2), "sqlite": (6, 4)}


def budget() -> tuple[int, int]:
    return BUDGET[connection.vendor]


@pytest.fixture
def server(tpersonas):
    # An active endpoint: every forwarded event is a pending row to publish.
    HostEndpoint.objects.create(
        host=tpersonas.acme, url="https://host.example.test/hook", secret_encrypted="unused"
    )
    return make_event_server(tpersonas.acme)


@pytest.fixture
def published(monkeypatch):
    """What the publisher sends, and from which thread (not the broker's business here)."""
    sent: list[tuple[str, list, str]] = []
    monkeypatch.setattr(
        publisher,
        "send",
        lambda name, args: sent.append((name, args, threading.current_thread().name)),
    )
    return sent


def deliver(sub, event_id: str, webhook_id: str):
    headers, raw = signed(sub.secret, event_body(event_id), webhook_id=webhook_id)
    with CaptureQueriesContext(connection) as captured:
        answer = webhook_receive(token=sub.token, headers=headers, body=raw)
    return answer, [q["sql"] for q in captured.captured_queries]


def test_an_accepted_event_and_its_duplicate_stay_within_budget(tpersonas, server, published):
    sub = make_subscription(tpersonas.alice, server, remote_id="sub_remote")
    accepted, duplicate = budget()
    answer, statements = deliver(sub, "evt_1", "msg_1")
    assert answer.body == {"status": "accepted"}
    assert len(statements) <= accepted, statements
    delivery = HostDelivery.objects.get(stream=sub.id)
    assert delivery.status == DeliveryStatus.PENDING
    assert delivery.body["data"]["event"]["eventId"] == "evt_1"
    stored = Subscription.objects.get(pk=sub.pk)
    assert stored.cursor == "1" and stored.last_event_at is not None

    # The same event again, under another webhook-id (a server's retry).
    answer, statements = deliver(sub, "evt_1", "msg_2")
    assert answer.body == {"status": "duplicate"}
    assert len(statements) <= duplicate, statements
    assert ReceivedEvent.objects.count() == 1 and HostDelivery.objects.count() == 1

    deadline = time.monotonic() + 5
    while not published and time.monotonic() < deadline:
        time.sleep(0.01)
    assert published == [("outbox.send_host_delivery", [delivery.seq], "outbox-publisher")]


def test_a_filtered_a_digest_and_a_held_event_cost_the_same(tpersonas, server, published):
    accepted, _ = budget()
    filtered = make_subscription(
        tpersonas.alice,
        server,
        remote_id="sub_remote",
        arguments={"repo": "a"},
        filter={"tags": ["deploy"]},
    )
    digest = make_subscription(
        tpersonas.alice,
        server,
        remote_id="sub_remote",
        arguments={"repo": "b"},
        channel=channel_parse({"type": "cron", "expression": "* * * * *", "timezone": "UTC"}),
    )
    paused = make_subscription(
        tpersonas.alice,
        server,
        remote_id="sub_remote",
        arguments={"repo": "c"},
        status=SubscriptionStatus.PAUSED,
        paused_at=timezone.now(),
    )
    for sub in (filtered, digest, paused):
        answer, statements = deliver(sub, "evt_1", "msg_1")
        assert answer.body == {"status": "accepted"}
        assert len(statements) <= accepted, (sub, statements)
    assert Subscription.objects.get(pk=filtered.pk).filtered_count == 1
    assert not HostDelivery.objects.filter(stream__in=[filtered.id, digest.id]).exists()
    assert ReceivedEvent.objects.get(subscription=digest).digest_state == DigestState.WAITING
    assert HostDelivery.objects.get(stream=paused.id).status == DeliveryStatus.HELD
    assert published == []  # nothing pending: nothing to send
