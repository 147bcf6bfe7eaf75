"""docs/reliability.md row 1: the Celery worker killed with SIGKILL in the middle of
its work, and started again; nothing else is done by hand.

- forwarding: deliveries pending and in flight; the host still receives
  every event, each under one webhook-id (the outbox rows and the sweeper,
  not the broker, guarantee it);
- a subscription refresh in flight (``events/subscribe`` sent, no answer
  yet): its claim runs out and the refresh is done again; the events the
  server sent meanwhile reach the host once each;
- digests being sent: each digest is sent once, with each event in exactly
  one digest (a digest's transaction commits whole or not at all)."""

from __future__ import annotations

import signal
import time
from collections import defaultdict
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from outbox.emit import host_event_emit
from outbox.models import DeliveryStatus, HostDelivery
from outbox.services import host_endpoint_set
from tests.factories import in_thread
from tests.reliability.support import start_worker, workers_with
from tests.subscriptions.support import (
    SYSTEM,
    approve_events,
    make_event_server,
    make_subscription,
    wait_for,
)

pytestmark = pytest.mark.processes

EVENTS = 12


def _emit_all(host, sub):
    with transaction.atomic():
        for n in range(EVENTS):
            host_event_emit(
                host_id=host.id,
                type="event.received",
                data={
                    "subscription_id": sub.id,
                    "event": {"eventId": f"evt_crash_{n}", "data": {"n": n}},
                },
                stream=sub.id,
            )


def test_the_host_gets_every_event_once_after_the_worker_is_killed(live, tpersonas, receiver):
    server = make_event_server(tpersonas.acme)
    # Events reach the host only on the user's live consent (checked again when forwarded).
    approve_events(tpersonas.alice, server, ["build.finished"])
    sub = make_subscription(tpersonas.alice, server)
    _, receiver.secret = host_endpoint_set(host=tpersonas.acme, url=receiver.url, actor=SYSTEM)
    receiver.delay = 0.4  # keep sends in flight when the worker dies

    worker = live.child("worker")
    try:
        in_thread(_emit_all, tpersonas.acme, sub)
        wait_for(lambda: receiver.hits >= 2, message="sending started")
        live.supervisor.stop(worker, sig=signal.SIGKILL)
        assert worker.process.poll() == -signal.SIGKILL
        delivered_before = HostDelivery.objects.filter(status=DeliveryStatus.DELIVERED).count()
        assert delivered_before < EVENTS  # deliveries were left pending
    finally:
        if worker.process.poll() is not None:
            start_worker(live)
    receiver.delay = 0

    wait_for(
        lambda: (
            HostDelivery.objects.filter(stream=sub.id, status=DeliveryStatus.DELIVERED).count()
            == EVENTS
        ),
        timeout=60,
        message="every delivery delivered after the restart",
    )
    by_event: dict[str, set[str]] = defaultdict(set)
    for got in receiver.accepted("event.received"):
        by_event[got["data"]["event"]["eventId"]].add(got["webhook_id"])
    assert sorted(by_event) == sorted(f"evt_crash_{n}" for n in range(EVENTS))
    assert all(len(ids) == 1 for ids in by_event.values())  # a resend reuses the webhook-id
    assert not receiver.rejected


# --- a subscription refresh ----------------------------------------------------------

# A refresh's claim lasts MCP_CONNECT_TIMEOUT + MCP_CALL_TIMEOUT + 5 s at
# least: short ones here, so the killed worker's claim runs out in 10 s.
SHORT_CLAIM = {
    "MCP_CONNECT_TIMEOUT": "1",
    "MCP_CALL_TIMEOUT": "4",
    "SUBSCRIPTION_REFRESH_LEASE": "1",
}
OUTAGE_EVENTS = 3


def _subscribe_calls(refserver) -> int:
    requests = refserver.received()["requests"]
    return sum(r["method"] == "events/subscribe" for r in requests)


def test_a_refresh_killed_in_flight_is_done_again_and_no_event_is_lost(
    live, tpersonas, refserver, receiver
):
    from subscriptions.models import RefreshAttempt, Subscription
    from switchboard.services.servers import server_register

    with workers_with(live, SHORT_CLAIM):
        server = server_register(
            host=tpersonas.acme, name="Reference", url=refserver.mcp_url, actor=SYSTEM
        )
        approve_events(tpersonas.alice, server, ["build.finished"])
        _, receiver.secret = host_endpoint_set(host=tpersonas.acme, url=receiver.url, actor=SYSTEM)
        created = tpersonas.acme_api.post(
            "/subscriptions",
            json={
                "user": "alice",
                "server": server.id,
                "event": "build.finished",
                "arguments": {"repo": "acme/app"},
                "ttl_ms": 6000,  # refreshed at 4 s
            },
        )
        assert created.status_code == 201, created.content
        sub_id = created.json()["id"]
        rows = Subscription.objects.filter(pk=sub_id)
        wait_for(
            lambda: rows.filter(status="active", refresh_claimed_until=None).exists(),
            timeout=30,
            message="subscribed",
        )
        # The next events/subscribe (the refresh) is never answered.
        refserver.control(
            "POST", "behaviour", {"method": "events/subscribe", "fail": "hang", "times": 1}
        )
        wait_for(
            lambda: _subscribe_calls(refserver) >= 2,
            timeout=30,
            message="the refresh's events/subscribe at the server",
        )
        worker = live.child("worker")
        live.supervisor.stop(worker, sig=signal.SIGKILL)
        killed_at = timezone.now()
        assert RefreshAttempt.objects.filter(subscription_id=sub_id).count() == 1  # in flight
        assert rows.exclude(refresh_claimed_until=None).exists()  # its claim left behind

        # The server sends events while no worker runs.
        emitted = [
            refserver.control(
                "POST", "emit", {"name": "build.finished", "data": {"repo": "acme/app", "n": n}}
            )["eventId"]
            for n in range(OUTAGE_EVENTS)
        ]
        start_worker(live, SHORT_CLAIM)

        redone = wait_for(
            lambda: RefreshAttempt.objects.filter(
                subscription_id=sub_id, ok=True, at__gt=killed_at
            ).first(),
            timeout=60,
            message="the refresh done again by the new worker",
        )
        wait_for(
            lambda: len(receiver.accepted("event.received")) >= OUTAGE_EVENTS,
            timeout=60,
            message="the outage's events forwarded",
        )
        time.sleep(1)  # a duplicate would follow by now

    sub = rows.get()
    assert sub.status == "active", (sub.status, sub.last_error_message)
    assert sub.refresh_before > redone.at  # a live grant again
    by_event: dict[str, set[str]] = defaultdict(set)
    for got in receiver.accepted("event.received"):
        by_event[got["data"]["event"]["eventId"]].add(got["webhook_id"])
    assert sorted(by_event) == sorted(emitted)  # none lost, none extra
    forwarded = HostDelivery.objects.filter(stream=sub_id, type="event.received")
    assert forwarded.count() == OUTAGE_EVENTS  # none forwarded twice
    assert not receiver.rejected


# --- digests -----------------------------------------------------------------------

DIGESTS = 40
EVERY_MINUTE = {"type": "cron", "expression": "* * * * *", "timezone": "UTC"}


def test_digests_being_sent_when_the_worker_dies_are_each_sent_once(live, tpersonas, receiver):
    from subscriptions.models import DigestState, Mode, ReceivedEvent, Subscription
    from subscriptions.services.channels import channel_parse
    from subscriptions.services.intake import events_take_in
    from tests.subscriptions.support import event_body

    server = make_event_server(tpersonas.acme)
    approve_events(tpersonas.alice, server, ["deploy.status"])
    _, receiver.secret = host_endpoint_set(host=tpersonas.acme, url=receiver.url, actor=SYSTEM)
    later = timezone.now() + timedelta(hours=1)
    subs = []
    for n in range(DIGESTS):
        sub = make_subscription(
            tpersonas.alice,
            server,
            event="deploy.status",
            arguments={"n": n},
            mode=Mode.POLL,
            channel=channel_parse(EVERY_MINUTE),
            digest_from=timezone.now(),
            next_digest_at=later,
        )
        events_take_in(
            subscription_id=sub.pk,
            occurrences=[
                event_body(f"d{n}-{i}", cursor=f"{n}-{i}", name="deploy.status") for i in (1, 2)
            ],
            cursor=f"{n}-2",
            cursor_given=True,
            source="poll_truncated",
        )
        subs.append(sub)
    assert not HostDelivery.objects.filter(type="event.received").exists()  # they wait
    receiver.delay = 0.2  # the digests' deliveries keep the worker busy too

    digests = HostDelivery.objects.filter(type="events.digest")
    worker = live.child("worker")
    try:
        Subscription.objects.filter(pk__in=[s.pk for s in subs]).update(
            next_digest_at=timezone.now()
        )
        # Beat's next digest tick: on a loaded machine many ticks expire unrun.
        wait_for(lambda: digests.exists(), timeout=90, interval=0.05, message="digests started")
        live.supervisor.stop(worker, sig=signal.SIGKILL)
        sent_before = digests.count()
        assert sent_before < DIGESTS, "the worker was killed after the last digest"
    finally:
        if worker.process.poll() is not None:
            start_worker(live)
    receiver.delay = 0

    wait_for(
        lambda: digests.filter(status=DeliveryStatus.DELIVERED).count() == DIGESTS,
        timeout=90,
        message="every digest delivered",
    )
    time.sleep(1)  # a second digest of a window would follow by now
    assert digests.count() == DIGESTS  # one per subscription
    in_digests: list[str] = []
    for delivery in digests:
        in_digests += [e["eventId"] for e in delivery.body["data"]["events"]]
    expected = [f"d{n}-{i}" for n in range(DIGESTS) for i in (1, 2)]
    assert sorted(in_digests) == sorted(expected)  # each event in exactly one digest
    assert set(ReceivedEvent.objects.values_list("digest_state", flat=True)) == {DigestState.SENT}
    host_got = {got["webhook_id"] for got in receiver.accepted("events.digest")}
    assert host_got == set(digests.values_list("webhook_id", flat=True))
    assert not receiver.rejected
