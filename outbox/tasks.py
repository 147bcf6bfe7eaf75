"""Celery tasks of the outbox: thin wrappers that take ids and call one
service. Each claims its row first, so ``acks_late`` redelivery is harmless."""

from __future__ import annotations

from celery import Task, shared_task
from celery.exceptions import Retry
from django.db import InterfaceError, OperationalError

from outbox.services import (
    AttemptOutcome,
    attempt_record,
    host_deliveries_send,
    host_deliveries_sweep,
    host_delivery_send,
)
from outbox.services.retention import delivery_bodies_purge
from switchboard.backoff import backoff

# A database error before the POST means nothing was sent: try again soon.
DATABASE_ERRORS = (OperationalError, InterfaceError)


def _retry_after_database_error(task: Task, exc: Exception, *, base: float, cap: float) -> Retry:
    """Send the task again after the one backoff, with its equal jitter
    (Celery's ``retry_backoff`` would draw full jitter, some retries at once,
    while the database that failed them may still be coming back)."""
    wait = backoff(task.request.retries + 1, base=base, cap=cap, jitter=True)
    return task.retry(exc=exc, countdown=wait)


@shared_task(name="outbox.send_host_delivery", bind=True, ignore_result=True, max_retries=8)
def send_host_delivery(self: Task, seq: int) -> str:
    try:
        return host_delivery_send(seq=seq)
    except DATABASE_ERRORS as exc:
        raise _retry_after_database_error(self, exc, base=1, cap=30) from exc


@shared_task(name="outbox.send_host_deliveries", bind=True, ignore_result=True, max_retries=8)
def send_host_deliveries(self: Task, seqs: list[int]) -> int:
    """A burst's rows (``outbox.publish``), together. A retry after a
    database error runs them all again: those sent meanwhile are skipped by
    their claim."""
    try:
        return host_deliveries_send(seqs=seqs)
    except DATABASE_ERRORS as exc:
        raise _retry_after_database_error(self, exc, base=1, cap=30) from exc


@shared_task(name="outbox.record_attempt", bind=True, ignore_result=True, max_retries=None)
def record_attempt(self: Task, outcome: dict) -> str:
    """The answer to a POST whose sender could not reach the database after it."""
    try:
        return attempt_record(AttemptOutcome(**outcome))
    except DATABASE_ERRORS as exc:
        raise _retry_after_database_error(self, exc, base=2, cap=60) from exc


@shared_task(name="outbox.send_host_deliveries_in_order", ignore_result=True)
def send_host_deliveries_in_order(seqs: list[int]) -> int:
    """Released held deliveries, in their order (resume keeps order)."""
    return host_deliveries_send(seqs=seqs, in_order=True)


@shared_task(name="outbox.sweep_host_deliveries", ignore_result=True)
def sweep_host_deliveries() -> int:
    return host_deliveries_sweep()


@shared_task(name="outbox.purge_delivery_bodies")
def purge_delivery_bodies() -> int:
    """Beat: erase bodies of delivered rows past each host's retention."""
    return delivery_bodies_purge()
