"""docs/reliability.md row 6: a host endpoint that hangs, redirects, throttles, fails
then recovers, or is gone. The session's real worker and beat send to a real
HTTP server in the test (verifying every delivery with ``svix``), on the
suite's compressed schedule (tests/testenv.py: retries after 0.3, 0.6, 1, 2
and 4 s, 2 s per attempt). What must hold is what outbox/services/sending.py
promises: only 2xx is success, redirects are never followed, ``Retry-After``
is honoured (capped), retries follow HOST_DELIVERY_RETRY_SCHEDULE and then
stop, 410 disables the endpoint, and so does failing for
HOST_ENDPOINT_DISABLE_AFTER. Waits are measured by the worker's clock (the
attempt log), with generous slack for a loaded machine."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from outbox.emit import host_event_emit
from outbox.models import (
    DeliveryAttempt,
    DeliveryStatus,
    EndpointStatus,
    HostDelivery,
    HostEndpoint,
)
from outbox.services import host_endpoint_enable, host_endpoint_set
from switchboard.models import AuditEntry
from tests.subscriptions.support import SYSTEM, HostReceiver, wait_for

pytestmark = pytest.mark.processes

SCHEDULE = [0.3, 0.6, 1, 2, 4]  # tests/testenv.py's HOST_DELIVERY_RETRY_SCHEDULE
ATTEMPT_TIMEOUT = 2  # its HOST_DELIVERY_TIMEOUT
SLACK = 6.0  # a countdown behind beat's tasks on a loaded machine (seen: 4.1 s late)


@pytest.fixture
def endpoint(live, tpersonas, receiver):
    assert settings.HOST_DELIVERY_RETRY_SCHEDULE == SCHEDULE  # what the worker runs with
    endpoint, receiver.secret = host_endpoint_set(
        host=tpersonas.acme, url=receiver.url, actor=SYSTEM
    )
    return endpoint


def _emit(host_id: str, n: int = 0) -> HostDelivery:
    return host_event_emit(host_id=host_id, type="ping", data={"n": n})


def _row(delivery: HostDelivery) -> HostDelivery:
    return HostDelivery.objects.get(seq=delivery.seq)


def _attempts(delivery: HostDelivery) -> list[tuple[int | None, str]]:
    return list(
        DeliveryAttempt.objects.filter(delivery_id=delivery.seq)
        .order_by("id")
        .values_list("status_code", "error_category")
    )


def _settled(delivery: HostDelivery, status: str, *, timeout: float = 30) -> HostDelivery:
    return wait_for(
        lambda: (row := _row(delivery)).status == status and row,
        timeout=timeout,
        message=f"delivery {delivery.seq} {status}",
    )


def _waits(delivery: HostDelivery) -> list[float]:
    """Seconds between one attempt's answer and the next attempt, by the
    worker's clock (the receiver's own times also carry this busy test
    process's thread scheduling)."""
    tries = list(DeliveryAttempt.objects.filter(delivery_id=delivery.seq).order_by("id"))
    return [
        (later.at - earlier.completed_at).total_seconds()
        for earlier, later in zip(tries, tries[1:], strict=False)
    ]


def _on_schedule(waits: list[float], schedule: list[float]) -> None:
    assert len(waits) == len(schedule), (waits, schedule)
    for waited, due in zip(waits, schedule, strict=True):
        assert due - 0.06 <= waited < due + SLACK, (waits, schedule)


def _same_webhook_id(receiver: HostReceiver, delivery: HostDelivery) -> None:
    assert not receiver.rejected
    assert {got["webhook_id"] for got in receiver.received} == {delivery.webhook_id}


def test_a_hanging_endpoint_is_given_up_on_at_the_timeout_and_retried(
    tpersonas, endpoint, receiver
):
    hang = 6.0

    def hang_the_first_request():
        if receiver.hits == 1:
            time.sleep(hang)

    receiver.during_request = hang_the_first_request
    delivery = _emit(tpersonas.acme.id)
    _settled(delivery, DeliveryStatus.DELIVERED)

    assert _attempts(delivery) == [(None, "timeout"), (204, "")]
    # Given up at the attempt's timeout (not after the hang), then retried
    # on the first step of the schedule.
    hung = DeliveryAttempt.objects.filter(delivery_id=delivery.seq).order_by("id").first()
    assert ATTEMPT_TIMEOUT * 1000 - 100 <= hung.duration_ms < (hang - 1) * 1000, hung.duration_ms
    _on_schedule(_waits(delivery), SCHEDULE[:1])
    _same_webhook_id(receiver, delivery)  # a retry is the same message


def test_a_redirect_is_never_followed_and_counts_as_a_failure(tpersonas, endpoint, receiver):
    elsewhere = HostReceiver()  # where the Location points: it must hear nothing
    try:
        elsewhere.secret = receiver.secret
        receiver.responses = [
            (307, {"Location": elsewhere.url}),  # one a client would re-POST
            (308, {"Location": elsewhere.url}),
            (302, {"Location": elsewhere.url}),
        ]
        delivery = _emit(tpersonas.acme.id)
        row = _settled(delivery, DeliveryStatus.DELIVERED)
        time.sleep(1)  # a late follow-up would arrive by now
        assert elsewhere.hits == 0
    finally:
        elsewhere.close()

    assert _attempts(delivery) == [
        (307, "http_3xx"),
        (308, "http_3xx"),
        (302, "http_3xx"),
        (204, ""),
    ]
    assert row.attempts == 4 and receiver.hits == 4
    _on_schedule(_waits(delivery), SCHEDULE[:3])
    _same_webhook_id(receiver, delivery)


def test_429_waits_for_retry_after_not_the_schedule(tpersonas, endpoint, receiver):
    receiver.responses = [(429, {"Retry-After": "3"})]
    delivery = _emit(tpersonas.acme.id)
    _settled(delivery, DeliveryStatus.DELIVERED)

    assert _attempts(delivery) == [(429, "http_4xx"), (204, "")]
    _on_schedule(_waits(delivery), [3])  # the schedule alone would say 0.3 s
    _same_webhook_id(receiver, delivery)


def test_a_retry_after_beyond_the_cap_waits_in_the_row_not_in_the_broker(
    tpersonas, endpoint, receiver
):
    receiver.responses = [(429, {"Retry-After": str(10 * 86400)})]
    delivery = _emit(tpersonas.acme.id)
    wait_for(lambda: _row(delivery).attempts == 1, message="the throttled attempt")

    row = _row(delivery)
    [attempt] = DeliveryAttempt.objects.filter(delivery_id=delivery.seq)
    wait = (row.next_attempt_at - attempt.completed_at).total_seconds()
    assert wait == pytest.approx(settings.HOST_DELIVERY_RETRY_AFTER_MAX, abs=5)  # capped
    assert row.status == DeliveryStatus.PENDING and row.enqueued_at is None  # no countdown
    time.sleep(2 * settings.HOST_DELIVERY_REQUEUE_AFTER)  # the sweeper leaves it alone
    assert receiver.hits == 1


def test_500_then_200_is_retried_on_the_first_step_of_the_schedule(tpersonas, endpoint, receiver):
    receiver.responses = [(500, {}), (200, {})]
    delivery = _emit(tpersonas.acme.id)
    row = _settled(delivery, DeliveryStatus.DELIVERED)

    assert _attempts(delivery) == [(500, "http_5xx"), (200, "")]
    assert row.attempts == 2 and row.last_status_code == 200
    _on_schedule(_waits(delivery), SCHEDULE[:1])
    endpoint = HostEndpoint.objects.get(host=tpersonas.acme)
    assert endpoint.status == EndpointStatus.ACTIVE and endpoint.failing_since is None
    _same_webhook_id(receiver, delivery)


def test_failures_follow_the_whole_schedule_and_then_stop(tpersonas, endpoint, receiver):
    receiver.responses = [(500, {})] * 20
    delivery = _emit(tpersonas.acme.id)
    row = _settled(delivery, DeliveryStatus.FAILED, timeout=60)
    time.sleep(2)  # nothing more comes

    assert receiver.hits == len(SCHEDULE) + 1 == row.attempts
    _on_schedule(_waits(delivery), SCHEDULE)
    assert row.next_attempt_at is None
    # Failing for a minute is not failing for five days: the endpoint stays on.
    assert HostEndpoint.objects.get(host=tpersonas.acme).status == EndpointStatus.ACTIVE
    _same_webhook_id(receiver, delivery)


def test_410_disables_the_endpoint_and_what_follows_waits_until_it_is_enabled(
    tpersonas, endpoint, receiver
):
    receiver.responses = [(410, {})]
    gone = _emit(tpersonas.acme.id, 1)
    _settled(gone, DeliveryStatus.DISABLED)

    endpoint = HostEndpoint.objects.get(host=tpersonas.acme)
    assert endpoint.status == EndpointStatus.DISABLED and "410" in endpoint.disabled_reason
    assert AuditEntry.objects.filter(kind="host_endpoint.disabled").count() == 1
    assert _attempts(gone) == [(410, "http_4xx")]
    later = _emit(tpersonas.acme.id, 2)
    assert _row(later).status == DeliveryStatus.DISABLED
    time.sleep(2 * settings.HOST_DELIVERY_REQUEUE_AFTER)  # neither retried nor swept
    assert receiver.hits == 1

    host_endpoint_enable(host=tpersonas.acme, actor=SYSTEM)
    _settled(gone, DeliveryStatus.DELIVERED)
    _settled(later, DeliveryStatus.DELIVERED)
    by_id = [got["webhook_id"] for got in receiver.received]
    # The 410'd message once more under its own webhook-id, the held one once.
    assert sorted(by_id) == sorted([gone.webhook_id, gone.webhook_id, later.webhook_id])
    assert not receiver.rejected


def test_an_endpoint_failing_for_the_disable_period_is_disabled(tpersonas, endpoint, receiver):
    # Five days of failures, as the row would show them (the clock is not ours to move).
    HostEndpoint.objects.filter(host=tpersonas.acme).update(
        failing_since=timezone.now() - timedelta(seconds=settings.HOST_ENDPOINT_DISABLE_AFTER + 60)
    )
    receiver.responses = [(500, {})] * 5
    delivery = _emit(tpersonas.acme.id)
    wait_for(
        lambda: HostEndpoint.objects.get(host=tpersonas.acme).status == EndpointStatus.DISABLED,
        timeout=30,
        message="the endpoint disabled",
    )
    _settled(delivery, DeliveryStatus.DISABLED)
    time.sleep(2 * settings.HOST_DELIVERY_REQUEUE_AFTER)
    # The first failure past the period disables it: no retry after it.
    assert receiver.hits == 1
    assert _attempts(delivery) == [(500, "http_5xx")]
    endpoint = HostEndpoint.objects.get(host=tpersonas.acme)
    assert endpoint.disabled_reason.startswith("deliveries have failed since")
