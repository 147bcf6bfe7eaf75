"""docs/reliability.md row 5: a task whose countdown passes the broker's visibility
timeout does not act twice.

Celery on Redis keeps a countdown task unacknowledged in the worker that
took it until it runs; once it is older than the visibility timeout, kombu
puts it back on the queue and a worker takes it again, as often as the wait
allows (Celery's documented caveat for Redis, the "visibility-timeout
loop"): every copy runs at the due time. The worker here runs with a 1 s
timeout and a delivery retry due 6 s after a failure. The test checks in the
worker's log that the fault happened (the retry's task received and run more
than once) and that the host still got the retry once: each copy claims the
row first, and only the first finds it due and unclaimed."""

from __future__ import annotations

import pytest

from outbox.emit import host_event_emit
from outbox.models import DeliveryAttempt, DeliveryStatus, HostDelivery
from outbox.services import host_endpoint_set
from tests.reliability.support import LogTail, tasks_received, tasks_returned, workers_with
from tests.subscriptions.support import SYSTEM, wait_for

pytestmark = pytest.mark.processes

TASK = "outbox.send_host_delivery"
VISIBILITY_TIMEOUT = 1
RETRY_AFTER = 6  # seconds: well past the visibility timeout, inside HOST_DELIVERY_COUNTDOWN_MAX


def _retry_runs(log: LogTail) -> tuple[int, list[str]] | None:
    """The retry's task (the one that delivered): how often the worker
    received it and what its runs returned, once every copy received has run."""
    text = log.read()
    returned = tasks_returned(text, TASK)
    retry = next((i for i, values in returned.items() if "'delivered'" in values), None)
    if retry is None:
        return None
    received = tasks_received(text, TASK)[retry]
    return (received, returned[retry]) if len(returned[retry]) >= received else None


def test_a_retry_due_after_the_visibility_timeout_reaches_the_host_once(live, tpersonas, receiver):
    _, receiver.secret = host_endpoint_set(host=tpersonas.acme, url=receiver.url, actor=SYSTEM)
    receiver.responses = [(503, {})]  # then 204
    env = {
        "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
        "HOST_DELIVERY_RETRY_SCHEDULE": str(RETRY_AFTER),
        # Room for the test process's receiver to answer on a loaded machine:
        # the first attempt must record the 503, not a timeout.
        "HOST_DELIVERY_TIMEOUT": "10",
    }
    with workers_with(live, env):
        log = LogTail(live.child("worker"))
        delivery = host_event_emit(host_id=tpersonas.acme.id, type="ping", data={})
        wait_for(
            lambda: HostDelivery.objects.get(seq=delivery.seq).status == DeliveryStatus.DELIVERED,
            timeout=90,
            message="the retry delivered",
        )
        received, returned = wait_for(
            lambda: _retry_runs(log), timeout=60, message="every copy of the retry run"
        )

    # The fault happened: the broker gave the retry's task out again and the
    # worker ran each copy at the due time.
    assert received >= 2, (received, returned)
    # Only the first did anything; the others found the row claimed or delivered.
    assert sorted(returned) == ["'delivered'"] + ["'skipped'"] * (len(returned) - 1), returned
    # So the host got the failure and one retry, under one webhook-id.
    assert receiver.hits == 2
    assert [got["webhook_id"] for got in receiver.received] == [delivery.webhook_id] * 2
    tries = list(DeliveryAttempt.objects.filter(delivery_id=delivery.seq).order_by("id"))
    assert [(t.status_code, t.error_category) for t in tries] == [(503, "http_5xx"), (204, "")]
    waited = (tries[1].at - tries[0].completed_at).total_seconds()
    # Not early; late only by what a loaded machine adds (the sweeper would
    # have resent it 2 s after the due time).
    assert RETRY_AFTER - 0.06 <= waited < RETRY_AFTER + 10, waited
    assert not receiver.rejected
