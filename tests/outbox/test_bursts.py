"""Sending a burst's rows together (``host_deliveries_send``, docs/reliability.md row 12):
about one statement per row in the plain case, and every other case handed,
unchanged, to the one-row path: a failure, a disabled endpoint, rows not
due or held by another sender, a slow endpoint using up the claim.

Against a real HTTP endpoint that verifies each delivery with svix."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from outbox.models import (
    DeliveryAttempt,
    DeliveryStatus,
    EndpointStatus,
    HostDelivery,
    HostEndpoint,
)
from outbox.services import host_deliveries_send
from outbox.services.bursts import CLAIM_MAX
from outbox.services.sending import WORKER_LOST
from tests.outbox.test_forwarding import emit

# The tests on committed rows record the tasks their rows' publishes send
# (``tasks_sent``): a live worker of the session would send those rows too.


def _held() -> int:
    """Rows under a claim now, read from the endpoint's thread while it answers."""
    try:
        return HostDelivery.objects.filter(claimed_until__isnull=False).count()
    finally:
        connection.close()


def _burst(personas, n: int) -> list[int]:
    return [emit(personas, data={"n": i}).seq for i in range(n)]


def _sent(receiver) -> list[int]:
    """Every POST the endpoint verified, whatever it answered."""
    with receiver.lock:
        return [r["data"]["n"] for r in receiver.received]


def _attempts(seq: int) -> list[tuple[int | None, str]]:
    return list(
        DeliveryAttempt.objects.filter(delivery_id=seq)
        .order_by("id")
        .values_list("status_code", "error_category")
    )


def test_a_burst_is_sent_in_order_once_at_about_a_statement_per_row(personas, endpoint, receiver):
    warm = _burst(personas, 2)
    assert host_deliveries_send(seqs=warm) == 2  # the endpoint's success stamp is fresh now
    receiver.received.clear()
    seqs = _burst(personas, 10)
    with CaptureQueriesContext(connection) as queries:
        assert host_deliveries_send(seqs=seqs) == 10
    statements = [q["sql"] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]
    # Claim (take the rows, close attempts a dead sender left, open the
    # attempts), read the rows with their endpoint, complete the attempts,
    # mark the rows, read the attempts for the live log: 7 for ten rows
    # (one at a time: 70).
    assert len(statements) == 7, "\n".join(statements)
    assert sorted(_sent(receiver)) == list(range(10))
    rows = HostDelivery.objects.filter(seq__in=seqs)
    assert {(r.status, r.attempts, r.last_status_code, r.claimed_until) for r in rows} == {
        (DeliveryStatus.DELIVERED, 1, 204, None)
    }
    assert all(_attempts(seq) == [(204, "")] for seq in seqs)
    assert not DeliveryAttempt.objects.filter(completed_at__isnull=True).exists()


def test_the_posts_of_a_burst_are_in_flight_at_once(personas, endpoint, receiver, settings):
    """A slow host (300 ms an answer) does not make eight rows take 2.4 s:
    they arrive together. In order, they follow each other."""
    settings.HOST_DELIVERY_CONCURRENCY = 8
    receiver.delay = 0.3
    assert host_deliveries_send(seqs=_burst(personas, 8)) == 8
    assert max(receiver.hit_times) - min(receiver.hit_times) < 0.6  # one after the other: >= 2.1
    assert sorted(_sent(receiver)) == list(range(8))
    receiver.received.clear()
    receiver.hit_times.clear()
    assert host_deliveries_send(seqs=_burst(personas, 3), in_order=True) == 3
    assert _sent(receiver) == [0, 1, 2]
    gaps = [b - a for a, b in zip(receiver.hit_times, receiver.hit_times[1:], strict=False)]
    assert min(gaps) >= 0.3


def test_at_once_a_failure_is_retried_and_the_successes_end_the_run_of_failures(
    personas, endpoint, receiver, settings
):
    settings.HOST_DELIVERY_RETRY_SCHEDULE = [60]
    receiver.responses = [(500, {})]  # whichever row arrives first
    seqs = _burst(personas, 5)
    assert host_deliveries_send(seqs=seqs) == 4
    attempts = sorted(_attempts(seq)[0] for seq in seqs)
    assert [_attempts(seq) for seq in seqs].count([(500, "http_5xx")]) == 1
    assert attempts == [(204, "")] * 4 + [(500, "http_5xx")]
    failed = HostDelivery.objects.get(status=DeliveryStatus.PENDING)
    assert failed.next_attempt_at > timezone.now() and failed.attempts == 1
    assert HostEndpoint.objects.get().failing_since is None
    assert sorted(_sent(receiver)) == list(range(5))


def test_a_task_run_again_sends_nothing_again(personas, endpoint, receiver):
    seqs = _burst(personas, 4)
    assert host_deliveries_send(seqs=seqs) == 4
    assert host_deliveries_send(seqs=seqs) == 0
    assert sorted(_sent(receiver)) == [0, 1, 2, 3]


def test_in_order_a_failure_records_the_successes_before_it_then_the_rest_go_one_by_one(
    personas, endpoint, receiver, settings
):
    settings.HOST_DELIVERY_RETRY_SCHEDULE = [60]
    receiver.responses = [(204, {}), (204, {}), (500, {})]
    seqs = _burst(personas, 5)
    assert host_deliveries_send(seqs=seqs, in_order=True) == 4
    assert [_attempts(seq) for seq in seqs] == [
        [(204, "")],
        [(204, "")],
        [(500, "http_5xx")],
        [(204, "")],
        [(204, "")],
    ]
    failed = HostDelivery.objects.get(seq=seqs[2])
    assert failed.status == DeliveryStatus.PENDING and failed.next_attempt_at > timezone.now()
    assert _sent(receiver) == [0, 1, 2, 3, 4]
    # The run of failures was ended by the successes that came after it.
    assert HostEndpoint.objects.get().failing_since is None


def test_in_order_a_410_parks_the_rest_unsent(personas, endpoint, receiver):
    receiver.responses = [(204, {}), (410, {})]
    seqs = _burst(personas, 4)
    assert host_deliveries_send(seqs=seqs, in_order=True) == 1
    assert HostEndpoint.objects.get().status == EndpointStatus.DISABLED
    assert list(
        HostDelivery.objects.filter(seq__in=seqs).order_by("seq").values_list("status", flat=True)
    ) == [
        DeliveryStatus.DELIVERED,
        DeliveryStatus.DISABLED,
        DeliveryStatus.DISABLED,
        DeliveryStatus.DISABLED,
    ]
    assert _sent(receiver) == [0, 1]
    assert _attempts(seqs[2]) == [] and _attempts(seqs[3]) == []  # nothing sent, nothing logged


def test_rows_not_due_or_held_by_another_sender_are_left_to_them(personas, endpoint, receiver):
    seqs = _burst(personas, 4)
    now = timezone.now()
    HostDelivery.objects.filter(seq=seqs[1]).update(next_attempt_at=now + timedelta(minutes=5))
    HostDelivery.objects.filter(seq=seqs[2]).update(claimed_until=now + timedelta(seconds=30))
    assert host_deliveries_send(seqs=seqs) == 2
    assert sorted(_sent(receiver)) == [0, 3]
    assert HostDelivery.objects.get(seq=seqs[2]).claimed_until is not None  # still theirs
    assert _attempts(seqs[1]) == [] and _attempts(seqs[2]) == []


def test_an_attempt_a_dead_sender_left_open_is_closed_as_worker_lost(personas, endpoint, receiver):
    seqs = _burst(personas, 2)
    DeliveryAttempt.objects.create(delivery_id=seqs[0])
    HostDelivery.objects.filter(seq=seqs[0]).update(
        claimed_until=timezone.now() - timedelta(seconds=1)
    )
    assert host_deliveries_send(seqs=seqs) == 2
    assert _attempts(seqs[0]) == [(None, WORKER_LOST), (204, "")]


@pytest.mark.django_db(transaction=True)
def test_a_slow_endpoint_ends_the_burst_before_the_claim_could_run_out(
    tpersonas, tendpoint, receiver, settings, tasks_sent
):
    """The burst starts a POST only while one could still finish inside the
    claim; the rest are released and claimed afresh one by one. (In order,
    so the POSTs follow each other; at once, a POST that cannot start in
    time is left the same way.)"""
    settings.HOST_DELIVERY_TIMEOUT = 2
    settings.HOST_DELIVERY_LEASE_MARGIN = 0.5
    receiver.delay = 0.3
    seqs = _burst(tpersonas, 5)
    held: list[int] = []
    receiver.during_request = lambda: held.append(_held())
    assert host_deliveries_send(seqs=seqs, in_order=True) == 5
    assert _sent(receiver) == [0, 1, 2, 3, 4]
    assert all(_attempts(seq) == [(204, "")] for seq in seqs)
    # The first POSTs went under the burst's claim (five rows held), the
    # last ones under a claim of their own (one row held at a time).
    assert held[0] == 5 and held[-1] == 1, held


@pytest.mark.django_db(transaction=True)
def test_a_long_list_is_claimed_a_chunk_at_a_time(tpersonas, tendpoint, receiver, tasks_sent):
    seqs = _burst(tpersonas, CLAIM_MAX + 3)
    claimed_at_once: list[int] = []
    receiver.during_request = lambda: claimed_at_once.append(_held())
    assert host_deliveries_send(seqs=seqs) == CLAIM_MAX + 3
    assert max(claimed_at_once) == CLAIM_MAX
    assert sorted(_sent(receiver)) == list(range(CLAIM_MAX + 3))
