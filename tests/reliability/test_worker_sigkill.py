"""A worker killed with SIGKILL while deliveries are pending and in flight:
after a restart the host still receives every event, each under one
webhook-id (the outbox rows and the sweeper, not the broker, guarantee it)."""

from __future__ import annotations

import os
import signal
from collections import defaultdict

import pytest
from django.db import transaction

from config import supervisor as sv
from outbox.emit import host_event_emit
from outbox.models import DeliveryStatus, HostDelivery
from outbox.services import host_endpoint_set
from tests.factories import in_thread
from tests.subscriptions.support import (
    SYSTEM,
    HostReceiver,
    make_event_server,
    make_subscription,
    wait_for,
)

pytestmark = pytest.mark.processes

EVENTS = 12


@pytest.fixture
def receiver():
    receiver = HostReceiver()
    yield receiver
    receiver.close()


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
            live.supervisor.start("worker", sv.celery_worker_argv(queue=os.environ["CELERY_QUEUE"]))
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
