"""Forwarding under faults: the database connection lost after the POST, a
worker killed in the middle of sending, and retries that land on time.

The timing tests run a worker and beat with the production defaults for
forwarding (not the test suite's compressed ones), so what they measure is
what a deployment gets.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter

import pytest
from django.db import connection, transaction

from config import supervisor as sv
from outbox.emit import host_event_emit
from outbox.models import DeliveryAttempt, DeliveryStatus, HostDelivery
from outbox.services import WORKER_LOST, host_delivery_send, host_endpoint_set
from tests.live import LIVE_APPLICATION_NAME, log_offset, wait_for_worker
from tests.pg import postgresql_only, terminate_backends
from tests.subscriptions.support import SYSTEM, HostReceiver, wait_for


@pytest.fixture(autouse=True)
def _fresh_connection_after():
    """These tests terminate backends, this process's included: leave with a
    connection that will reconnect, as a request boundary would."""
    yield
    connection.close()


# The production defaults (config/settings/events.py) production_timings runs with:
# HOST_DELIVERY_TIMEOUT + HOST_DELIVERY_LEASE_MARGIN, HOST_DELIVERY_SWEEP_EVERY.
PRODUCTION_LEASE = 8 + 2
PRODUCTION_SWEEP_EVERY = 2


def _sends_by_webhook_id(receiver: HostReceiver) -> Counter:
    return Counter(got["webhook_id"] for got in receiver.accepted())


@pytest.mark.django_db(transaction=True)
def _attempts_of(host) -> list[tuple]:
    """The host's attempt log, for an assertion's message: what each send
    got (a failure shows its status code or error category)."""
    return list(
        DeliveryAttempt.objects.filter(delivery__host=host)
        .order_by("id")
        .values_list("delivery_id", "at", "status_code", "error_category", "duration_ms")
    )


def test_an_attempt_is_recorded_when_the_connection_drops_after_the_post(tpersonas, receiver):
    """Regression: the answer was lost with the connection, the row stayed
    pending, and the sweeper sent the delivery a second time."""
    postgresql_only()
    _, receiver.secret = host_endpoint_set(host=tpersonas.acme, url=receiver.url, actor=SYSTEM)
    with transaction.atomic():  # committed, but no task: this test sends it itself
        delivery = HostDelivery.objects.create(
            host=tpersonas.acme, type="ping", body={"type": "ping", "data": {}}
        )
        HostDelivery.objects.filter(seq=delivery.seq).update(next_attempt_at=delivery.created_at)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (our_backend,) = cursor.fetchone()
    receiver.during_request = lambda: terminate_backends("pid = %s", (our_backend,))

    assert host_delivery_send(seq=delivery.seq) == "delivered"

    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.DELIVERED and delivery.attempts == 1
    (attempt,) = DeliveryAttempt.objects.filter(delivery=delivery)
    assert attempt.completed_at is not None and attempt.status_code == 204
    assert receiver.hits == 1
    assert host_delivery_send(seq=delivery.seq) == "skipped"  # nothing left to send


@pytest.mark.processes
def test_backends_terminated_while_forwarding_lose_no_attempt_and_send_nothing_twice(
    live, tpersonas, receiver
):
    postgresql_only()
    _, receiver.secret = host_endpoint_set(host=tpersonas.acme, url=receiver.url, actor=SYSTEM)
    receiver.delay = 0.3  # POSTs in flight when the backends go
    count = 30
    with transaction.atomic():
        for n in range(count):
            host_event_emit(host_id=tpersonas.acme.id, type="ping", data={"n": n})

    stop = threading.Event()
    terminated = []

    def chaos():
        while not stop.is_set() and len(terminated) < 6:
            time.sleep(0.4)
            # The processes' backends (web, worker, beat), not this test's own.
            terminated.append(terminate_backends("application_name = %s", (LIVE_APPLICATION_NAME,)))

    chaos_thread = threading.Thread(target=chaos, daemon=True)
    chaos_thread.start()
    try:
        wait_for(
            lambda: (
                connection.close()
                or HostDelivery.objects.filter(host=tpersonas.acme, status="delivered").count()
                == count
            ),
            timeout=90,
            message="every delivery delivered",
        )
    finally:
        stop.set()
        chaos_thread.join()
        connection.close()
    assert sum(terminated) > 0, "the test terminated no backend"

    sent = _sends_by_webhook_id(receiver)
    assert len(sent) == count and set(sent.values()) == {1}, sent  # none twice
    for delivery in HostDelivery.objects.filter(host=tpersonas.acme):
        logged = DeliveryAttempt.objects.filter(delivery=delivery).exclude(
            error_category=WORKER_LOST
        )
        assert [a.status_code for a in logged] == [204], delivery.webhook_id
        assert not DeliveryAttempt.objects.filter(delivery=delivery, completed_at=None).exists()


@pytest.mark.processes
def test_deliveries_of_a_killed_worker_are_sent_again_once_the_lease_ends(
    live, production_timings, tpersonas, receiver
):
    _, receiver.secret = host_endpoint_set(host=tpersonas.acme, url=receiver.url, actor=SYSTEM)
    receiver.delay = 0.5  # sends in flight when the worker dies
    count = 4
    _emit_pings(tpersonas.acme.id, count)
    wait_for(lambda: receiver.hits >= 1, timeout=30, message="sending started")

    worker = next(c for c in production_timings.children if c.name == "worker")
    since = log_offset(production_timings, "worker")
    production_timings.stop(worker, sig=signal.SIGKILL)
    killed_at = time.monotonic()
    replacement = production_timings.start(
        "worker", sv.celery_worker_argv(queue=os.environ["CELERY_QUEUE"])
    )
    wait_for_worker(replacement, since=since)
    ready_at = time.monotonic()

    wait_for(
        lambda: (
            connection.close()
            or HostDelivery.objects.filter(host=tpersonas.acme, status="delivered").count() == count
        ),
        timeout=60,
        message="every delivery delivered after the kill",
    )
    # The sends the dead worker had in flight reached the host but were never
    # recorded: they are sent again (same webhook-id), and that last send is
    # what the host waits for.
    sent = _sends_by_webhook_id(receiver)
    assert len(sent) == count and max(sent.values()) == 2, sent
    resent_at = max(receiver.hit_times)
    # The promise (config/settings/events.py): a row whose worker died is sent again
    # within timeout + margin + sweep interval (12 s by default) while a worker
    # runs. The leases were taken before the kill, so they end by
    # ``lease_ends``; here the only worker is the replacement, and on a loaded
    # machine it takes 15-40 s to start, so the clock starts at whichever
    # comes later. The slack covers the sweep's own send.
    lease_ends = killed_at + PRODUCTION_LEASE
    due = max(lease_ends, ready_at)
    print(
        f"the killed worker's deliveries were all sent again {resent_at - killed_at:.1f} s "
        f"after the kill; the replacement was ready after {ready_at - killed_at:.1f} s"
    )
    assert resent_at - due <= PRODUCTION_SWEEP_EVERY + 5, (
        resent_at - due,
        _attempts_of(tpersonas.acme),
    )
    # Each send is logged: every POST the host saw has its attempt. An attempt
    # is opened before its POST, so the dead worker's may also include one it
    # opened and never got to send (seen under load): at least one per resend.
    attempts = DeliveryAttempt.objects.filter(delivery__host=tpersonas.acme)
    assert attempts.count() >= receiver.hits
    lost = attempts.filter(error_category=WORKER_LOST)
    assert lost.count() >= sum(1 for n in sent.values() if n == 2)


@pytest.mark.processes
def test_the_first_retry_lands_on_time_not_on_the_next_sweep(
    live, production_timings, tpersonas, receiver
):
    _, receiver.secret = host_endpoint_set(host=tpersonas.acme, url=receiver.url, actor=SYSTEM)
    receiver.responses = [(500, {})]  # then 204
    _emit_pings(tpersonas.acme.id, 1)
    wait_for(lambda: receiver.hits >= 2, timeout=40, message="the retry")
    gap = receiver.hit_times[1] - receiver.hit_times[0]
    print(f"first retry {gap:.2f} s after the failure (schedule: 5 s)")
    # A broker countdown lands at 5 s; waiting for the sweeper would take
    # 5 s + HOST_DELIVERY_REQUEUE_AFTER (10 s).
    assert 4.9 <= gap < 8, gap


def _emit_pings(host_id: str, count: int) -> None:
    with transaction.atomic():
        for n in range(count):
            host_event_emit(host_id=host_id, type="ping", data={"n": n})
