"""``consent.enforce`` when events are forwarded: events received by
webhook, poll, push or MCPE are checked again when the outbox sends them
to the host (a lapse or a block in between fails them, the store
unreadable holds them), and the check's cost per burst (the faults:
``enforce_support.py``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.db import connection

from consent.enforce import CONSENT_UNAVAILABLE
from consent.models import Grant
from outbox.models import DeliveryStatus, HostDelivery
from subscriptions.models import Mode, Subscription, SubscriptionStatus
from subscriptions.services import webhook_receive
from subscriptions.services.poll import subscription_poll
from tests.consent.enforce_support import _block, _subscription, _unsent_events
from tests.subscriptions.support import event_body, make_subscription, signed

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


# --- forwarding: events received, checked again when they are sent to the host -----------


@pytest.fixture
def host_endpoint(tpersonas, receiver, tasks_sent, settings):
    """Acme's endpoint at a real HTTP receiver; rows are sent by the test
    (``outbox.services.host_deliveries_send``), not by a worker, with room
    for a loaded machine (no POST given up as a timeout)."""
    settings.HOST_DELIVERY_TIMEOUT = 20
    settings.HOST_DELIVERY_LEASE_MARGIN = 20
    answer = tpersonas.acme_api.put("/host/endpoint", json={"url": receiver.url})
    assert answer.status_code == 200, answer.content
    receiver.secret = answer.json()["secret"]
    return receiver


def _received_by_webhook(tpersonas, refserver, ref):
    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE)
    Subscription.objects.filter(pk=sub.pk).update(remote_id="sub_remote")
    for n in (1, 2):
        headers, raw = signed(sub.secret, event_body(f"evt_{n}", repo="acme/secret"))
        assert webhook_receive(token=sub.token, headers=headers, body=raw).status == 200
    return sub


def _received_by_poll(tpersonas, refserver, ref):
    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE, mode=Mode.POLL)
    assert subscription_poll(subscription_id=sub.pk) == "ok"  # the cursor: events from now on
    for n in (1, 2):
        refserver.control(
            "POST",
            "emit",
            {
                "name": "ticket.created",
                "data": {"key": f"T-{n}", "title": "secret"},
                "arguments": {"project": "apollo"},
            },
        )
    assert subscription_poll(subscription_id=sub.pk) == "ok"
    return sub


def _received_by_push(tpersonas, refserver, ref, repo: str = "acme/app"):
    from subscriptions.services.push import Frame, push_frames_take

    sub = make_subscription(
        tpersonas.alice,
        ref,
        arguments={"repo": repo},
        status=SubscriptionStatus.ACTIVE,
        mode=Mode.PUSH,
    )
    push_frames_take(
        [
            Frame(
                sub.pk,
                "event",
                {
                    "eventId": f"evt-{n}",
                    "name": "build.finished",
                    "timestamp": "2026-11-25T10:00:00Z",
                    "data": {"repo": "acme/secret"},
                    "cursor": str(n),
                },
            )
            for n in (1, 2)
        ]
    )
    return sub


def _received_by_mcpe(tpersonas, refserver, ref):
    from subscriptions.models import mcpe_session_item
    from subscriptions.services.mcpe import mcpe_notification_take

    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE, mode=Mode.MCPE)
    Subscription.objects.filter(pk=sub.pk).update(remote_id="mcpe-remote")
    events = [
        {"id": f"evt-{n}", "type": "build.finished", "data": {"repo": "acme/secret"}}
        for n in (1, 2)
    ]
    mcpe_notification_take(
        mcpe_session_item(tpersonas.alice.id, ref.id),
        "events/batch",
        {"subscriptionId": "mcpe-remote", "events": events},
    )
    return sub


RECEIPTS = {
    "webhook": _received_by_webhook,
    "poll": _received_by_poll,
    "push": _received_by_push,
    "mcpe": _received_by_mcpe,
}


def _lapse(grant: Grant) -> Callable[[], None]:
    """The grant's expiry passes; the sweep that ends what it covered has not
    run yet (nothing withdrew the events waiting)."""
    from datetime import timedelta

    from django.utils import timezone

    return lambda: Grant.objects.filter(pk=grant.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )


def _send_waiting(sub) -> list[int]:
    from outbox.services import host_deliveries_send

    seqs = list(
        HostDelivery.objects.filter(stream=sub.pk, status=DeliveryStatus.PENDING)
        .order_by("seq")
        .values_list("seq", flat=True)
    )
    host_deliveries_send(seqs=seqs)  # a burst (several rows at once)
    for seq in seqs:
        host_deliveries_send(seqs=[seq])  # and a row alone (another path)
    return seqs


@pytest.mark.parametrize("fault", ["lapsed", "blocked"])
@pytest.mark.parametrize("path", list(RECEIPTS))
def test_forward_consent_gone_between_receipt_and_forward_stops_the_events(
    tpersonas, refserver, ref, events_grant, host_endpoint, path, fault
):
    sub = RECEIPTS[path](tpersonas, refserver, ref)
    waiting = _unsent_events(sub)
    assert len(waiting) == 2 and all(r.status == DeliveryStatus.PENDING for r in waiting)
    (_lapse(events_grant) if fault == "lapsed" else _block(ref))()
    _send_waiting(sub)
    assert host_endpoint.accepted("event.received") == []
    rows = HostDelivery.objects.filter(stream=sub.pk, type="event.received")
    for row in rows:
        assert row.status == DeliveryStatus.FAILED
        assert row.last_error_category == ("no_consent" if fault == "lapsed" else "server_blocked")
        assert row.body["data"]["event"]["data"] is None
        assert not row.tries.exists()  # nothing was sent: no attempt


def test_forward_an_unreadable_store_holds_the_events_and_loses_none(
    tpersonas, refserver, ref, events_grant, host_endpoint, store
):
    from datetime import timedelta

    from django.utils import timezone

    sub = _received_by_webhook(tpersonas, refserver, ref)
    store.take_away()
    _send_waiting(sub)
    store.put_back()
    assert host_endpoint.accepted("event.received") == []
    rows = list(HostDelivery.objects.filter(stream=sub.pk, type="event.received"))
    assert len(rows) == 2
    for row in rows:
        # Not sent, not failed: due again, and the reason is on the row.
        assert (row.status, row.last_error_category) == (
            DeliveryStatus.PENDING,
            CONSENT_UNAVAILABLE,
        )
        assert row.next_attempt_at > timezone.now()
        assert row.body["data"]["event"]["data"] is not None
    # Once due and consent readable, they go.
    HostDelivery.objects.filter(stream=sub.pk).update(
        next_attempt_at=timezone.now() - timedelta(seconds=1)
    )
    _send_waiting(sub)
    assert len(host_endpoint.accepted("event.received")) == 2


def test_forward_the_check_costs_two_statements_a_burst_however_many_rows(
    tpersonas, refserver, ref, events_grant, host_endpoint
):
    from django.test.utils import CaptureQueriesContext

    from outbox.services import host_deliveries_send

    warm = _received_by_push(tpersonas, refserver, ref, repo="acme/warm")
    host_deliveries_send(
        seqs=[r.seq for r in _unsent_events(warm)]
    )  # the endpoint's stamp is fresh
    subs = [_received_by_push(tpersonas, refserver, ref, repo=f"acme/{n}") for n in range(3)]
    seqs = list(
        HostDelivery.objects.filter(stream__in=[s.pk for s in subs])
        .order_by("seq")
        .values_list("seq", flat=True)
    )
    assert len(seqs) == 6
    with CaptureQueriesContext(connection) as captured:
        assert host_deliveries_send(seqs=seqs) == 6
    statements = [
        q["sql"]
        for q in captured.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "BEGIN", "COMMIT"))
    ]
    # The outbox's burst costs 7 statements (tests/outbox/test_bursts.py);
    # forwarding events asks two more, for all the rows: their
    # subscriptions' users and servers, and the consent check.
    checks = [s for s in statements if "consent_grant" in s or "subscriptions_subscription" in s]
    assert len(checks) == 2, "\n".join(checks)
    assert len(statements) == 9, "\n".join(statements)
    assert len(host_endpoint.accepted("event.received")) == 8
