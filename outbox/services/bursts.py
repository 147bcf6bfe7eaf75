"""Sending the rows of a burst together: claimed in one transaction, POSTed
several at once over kept-alive connections (HOST_DELIVERY_CONCURRENCY), or
one after the other in the order given (released held rows), their
successes recorded in one transaction.

Why: one row at a time (``host_delivery_send``) costs seven statements, a
live-row render with its own query, Celery's per-task work and a full
round trip to the host before the next row; under load the worker forwarded
a fifth of what the receiver took in (docs/reliability.md row 12: forwarding must keep
up with half the receiver's peak on the same machine). Together, a burst of
ten costs about one statement per row, and a slow host is waited on once
per burst, not once per row.

Only the plain case is done together: rows due and free, their endpoint
active, POSTs started well inside the claim. A row not due or taken by
another sender is left to it; a row whose endpoint is missing or disabled,
or whose POST could no longer start in time, is released and sent by
``host_delivery_send`` alone, whose rules (parking, retries) apply
unchanged; a failed POST is recorded by the one-row rules (retry schedule,
``Retry-After``, disabling). In order, the first failure ends the burst and
the rest go alone, as before; the successes before it are recorded first,
so the endpoint's run of failures is what happened.

Exactly once as before: a row is POSTed only under its claim (which no
other sender can take before it runs out, and no POST starts later than
one timeout before that), its attempt is opened in the claim's transaction,
and an answer is recorded through lost connections (``surviving_reconnects``,
then a task). A worker killed between a POST and the recording leaves the
attempt open: the next claim closes it as ``worker_lost`` and sends again,
as a row sent alone would be.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Case, F, IntegerField, Value, When, prefetch_related_objects
from django.utils import timezone

from outbox import live
from outbox.gates import forward_refusals
from outbox.models import (
    DeliveryAttempt,
    DeliveryStatus,
    EndpointStatus,
    HostDelivery,
    HostEndpoint,
)
from outbox.services.rows import deliveries_withhold
from outbox.services.sending import (
    WORKER_LOST,
    AttemptOutcome,
    attempt_count,
    delivered_in_memory,
    delivered_values,
    host_delivery_send,
    lease_seconds,
    post,
    record_surviving_reconnects,
    success_to_write,
)
from switchboard.background import ForkLocal
from switchboard.queue import enqueue
from switchboard.reconnect import StillDisconnected, surviving_reconnects

# Rows claimed together at most: a long list (released held rows) goes
# chunk after chunk, so no claim covers rows that cannot be sent soon.
CLAIM_MAX = 20


def host_deliveries_send(*, seqs: list[int], in_order: bool = False) -> int:
    """Send these rows; how many were delivered. ``in_order``: one after the
    other in the order given (released held rows), else several at once
    (HOST_DELIVERY_CONCURRENCY): the host is told deliveries may arrive out
    of order, and a worker waiting on one POST at a time forwards no faster
    than one row per round trip to the host."""
    order = list(dict.fromkeys(seqs))
    if len(order) == 1:
        return int(host_delivery_send(seq=order[0]) == "delivered")
    return sum(
        _chunk_send(order[start : start + CLAIM_MAX], in_order=in_order)
        for start in range(0, len(order), CLAIM_MAX)
    )


Sent = tuple[AttemptOutcome, HostDelivery, HostEndpoint]


def _chunk_send(order: list[int], *, in_order: bool) -> int:
    started = time.monotonic()
    now = timezone.now()
    claimed_until = now + timedelta(seconds=lease_seconds())
    attempts = _claim(order, now, claimed_until)
    # POSTs start only while one could still finish inside the claim.
    last_start = started + lease_seconds() - settings.HOST_DELIVERY_TIMEOUT
    rows = {
        d.seq: d
        for d in HostDelivery.objects.select_related("host__endpoint").filter(seq__in=attempts)
    }
    claimed = [rows[seq] for seq in order if seq in attempts]
    # Gates of the apps that own rows, for the burst at once, right before
    # any POST (``outbox.gates``); what they refuse is not sent.
    refused = forward_refusals(claimed)
    if refused:
        deliveries_withhold(refusals=refused, rows=rows, attempts=attempts)
        claimed = [d for d in claimed if d.seq not in refused]

    def send(delivery: HostDelivery) -> Sent | None:
        """One POST, or None when it is not to be sent here."""
        endpoint = _active_endpoint(delivery)
        if endpoint is None or time.monotonic() > last_start:
            return None
        post_started = time.monotonic()
        code, category, retry_after = post(endpoint, delivery, now)
        outcome = AttemptOutcome(
            attempt_id=attempts[delivery.seq],
            seq=delivery.seq,
            code=code,
            category=category,
            retry_after=retry_after,
            duration_ms=int((time.monotonic() - post_started) * 1000),
        )
        return outcome, delivery, endpoint

    if in_order:
        sent, rest = _one_after_the_other(claimed, send)
    else:
        answers = list(_senders().map(send, claimed))
        sent = [answer for answer in answers if answer is not None]
        rest = [d.seq for d, answer in zip(claimed, answers, strict=True) if answer is None]
    delivered = _outcomes_record(sent, successes_first=in_order)
    if rest:
        _release(rest, attempts, claimed_until)
        delivered += sum(host_delivery_send(seq=seq) == "delivered" for seq in rest)
    # Rows not claimed here (not due, or another sender has them) are that
    # sender's, or the sweeper's once due.
    return delivered


def _one_after_the_other(
    claimed: list[HostDelivery], send: Callable[[HostDelivery], Sent | None]
) -> tuple[list[Sent], list[int]]:
    """POST in order until a row cannot go or fails: the rest is left."""
    sent: list[Sent] = []
    for index, delivery in enumerate(claimed):
        answer = send(delivery)
        if answer is None:
            return sent, [d.seq for d in claimed[index:]]
        sent.append(answer)
        if answer[0].category:
            return sent, [d.seq for d in claimed[index + 1 :]]
    return sent, []


def _outcomes_record(sent: list[Sent], *, successes_first: bool) -> int:
    """Record the answers: the successes together, each failure on its own
    (the one-row rules: retries, disabling). The endpoint's run of failures
    follows what came last: in order, the failure that ended the run; at
    once, any success (the endpoint answers, whatever else failed), so then
    the successes go last and always write their stamp."""
    succeeded = [answer for answer in sent if not answer[0].category]
    failed = [answer for answer in sent if answer[0].category]
    delivered = _successes_record(succeeded) if successes_first else 0
    for outcome, delivery, endpoint in failed:
        record_surviving_reconnects(outcome, delivery=delivery, endpoint=endpoint)
    if not successes_first:
        delivered = _successes_record(succeeded, stamp=bool(failed))
    return delivered


class _PostThreads(ForkLocal):
    """This process's POST threads (they only sign and POST: no database),
    as many as HOST_DELIVERY_CONCURRENCY says now. A forked child has the
    parent's pool object but not its threads, so it starts without one."""

    def _reset(self) -> None:
        self._pool: tuple[int, ThreadPoolExecutor] | None = None

    def get(self) -> ThreadPoolExecutor:
        self._ensure_this_process()
        size = settings.HOST_DELIVERY_CONCURRENCY
        if self._pool is None or self._pool[0] != size:
            if self._pool is not None:
                self._pool[1].shutdown(wait=False)
            self._pool = (
                size,
                ThreadPoolExecutor(max_workers=size, thread_name_prefix="outbox-post"),
            )
        return self._pool[1]


_post_threads = _PostThreads()


def _senders() -> ThreadPoolExecutor:
    return _post_threads.get()


def _active_endpoint(delivery: HostDelivery) -> HostEndpoint | None:
    try:
        endpoint: HostEndpoint = delivery.host.endpoint
    except HostEndpoint.DoesNotExist:
        return None
    return endpoint if endpoint.status == EndpointStatus.ACTIVE else None


@transaction.atomic
def _claim(seqs: list[int], now: datetime, claimed_until: datetime) -> dict[int, int]:
    """Take the rows that are due and free, and open an attempt for each, in
    one transaction: {seq: attempt id}. Attempts left open by a sender that
    died are closed as ``worker_lost``, as ``host_delivery_send`` does."""
    table = connection.ops.quote_name(HostDelivery._meta.db_table)
    marks = ", ".join(["%s"] * len(seqs))
    with connection.cursor() as cursor:
        # One conditional UPDATE that says which rows it took (RETURNING:
        # PostgreSQL, and SQLite since 3.35); the ORM's update only counts.
        cursor.execute(
            f"UPDATE {table} SET claimed_until = %s "
            f"WHERE seq IN ({marks}) AND status = %s AND next_attempt_at <= %s "
            "AND (claimed_until IS NULL OR claimed_until < %s) RETURNING seq",
            [
                connection.ops.adapt_datetimefield_value(claimed_until),
                *seqs,
                DeliveryStatus.PENDING,
                connection.ops.adapt_datetimefield_value(now),
                connection.ops.adapt_datetimefield_value(now),
            ],
        )
        taken = [seq for (seq,) in cursor.fetchall()]
    if not taken:
        return {}
    DeliveryAttempt.objects.filter(delivery_id__in=taken, completed_at__isnull=True).update(
        completed_at=now, error_category=WORKER_LOST
    )
    opened = DeliveryAttempt.objects.bulk_create([DeliveryAttempt(delivery_id=s) for s in taken])
    return {attempt.delivery_id: attempt.id for attempt in opened}


@transaction.atomic
def _release(seqs: list[int], attempts: dict[int, int], claimed_until: datetime) -> None:
    """Give back rows claimed but not sent: nothing was sent, so their
    attempts go (as ``host_delivery_send`` does when it parks a row)."""
    HostDelivery.objects.filter(seq__in=seqs, claimed_until=claimed_until).update(
        claimed_until=None
    )
    DeliveryAttempt.objects.filter(
        id__in=[attempts[seq] for seq in seqs], completed_at__isnull=True
    ).delete()


def _successes_record(succeeded: list[Sent], *, stamp: bool = False) -> int:
    """Record the burst's successes (through lost connections; then by a
    task per answer, as a row sent alone). ``stamp``: write the endpoint's
    success whatever it looked like before the POSTs."""
    if not succeeded:
        return 0
    try:
        return surviving_reconnects(
            lambda: _successes_write(succeeded, stamp=stamp),
            what=f"recording {len(succeeded)} delivered rows",
        )
    except StillDisconnected:
        for outcome, _, _ in succeeded:
            enqueue("outbox.record_attempt", asdict(outcome))
        return 0


@transaction.atomic
def _successes_write(succeeded: list[Sent], *, stamp: bool) -> int:
    """The attempts (one UPDATE), each endpoint's success stamp when due (see
    ``success_to_write``), the rows (one UPDATE per status code), and the
    live log rows (one read of their attempts, one message per host)."""
    now = timezone.now()
    by_attempt = {outcome.attempt_id: (outcome, d, e) for outcome, d, e in succeeded}
    completed = DeliveryAttempt.objects.filter(id__in=by_attempt, completed_at__isnull=True).update(
        completed_at=now,
        status_code=_per_attempt({a: o.code for a, (o, _, _) in by_attempt.items()}),
        duration_ms=_per_attempt({a: o.duration_ms for a, (o, _, _) in by_attempt.items()}),
        error_category="",
    )
    if completed < len(by_attempt):
        # A second recording of some answer came first (a ``record_attempt``
        # task): only what this UPDATE completed counts here.
        mine = set(
            DeliveryAttempt.objects.filter(id__in=by_attempt, completed_at=now).values_list(
                "id", flat=True
            )
        )
        by_attempt = {a: v for a, v in by_attempt.items() if a in mine}
    endpoints = {e.host_id: e for _, _, e in by_attempt.values()}
    for host_id, endpoint in endpoints.items():
        if stamp or success_to_write(endpoint, now):
            HostEndpoint.objects.filter(host_id=host_id).update(
                last_success_at=now, failing_since=None, updated_at=now
            )
    by_code: dict[int | None, list[int]] = defaultdict(list)
    for outcome, _, _ in by_attempt.values():
        by_code[outcome.code].append(outcome.seq)
    for code, seqs in by_code.items():
        HostDelivery.objects.filter(seq__in=seqs).update(
            attempts=F("attempts") + 1, **delivered_values(code, now)
        )
    delivered = []
    for outcome, delivery, _ in by_attempt.values():
        delivered_in_memory(delivery, delivered_values(outcome.code, now))
        delivered.append(delivery)
        attempt_count(outcome, type_=delivery.type, result="delivered")
    prefetch_related_objects(delivered, "tries")
    live.deliveries_changed(delivered)
    return len(delivered)


def _per_attempt(values: dict[int, int | None]) -> Case:
    return Case(
        *(When(id=attempt_id, then=Value(value)) for attempt_id, value in values.items()),
        output_field=IntegerField(),
    )
