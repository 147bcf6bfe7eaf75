"""Celery tasks of the outbox: thin wrappers that take ids and call one
service. Each claims its row first, so ``acks_late`` redelivery is harmless."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from outbox.services import (
    AttemptOutcome,
    attempt_record,
    host_deliveries_send,
    host_deliveries_sweep,
    host_delivery_send,
)
from outbox.services.retention import delivery_bodies_purge

# A database error before the POST means nothing was sent: try again soon.
DATABASE_ERRORS = (OperationalError, InterfaceError)


@shared_task(
    name="outbox.send_host_delivery",
    ignore_result=True,
    autoretry_for=DATABASE_ERRORS,
    retry_backoff=1,
    retry_backoff_max=30,
    max_retries=8,
)
def send_host_delivery(seq: int) -> str:
    return host_delivery_send(seq=seq)


@shared_task(
    name="outbox.send_host_deliveries",
    ignore_result=True,
    autoretry_for=DATABASE_ERRORS,
    retry_backoff=1,
    retry_backoff_max=30,
    max_retries=8,
)
def send_host_deliveries(seqs: list[int]) -> int:
    """A burst's rows (``outbox.publish``), together. A retry after a
    database error runs them all again: those sent meanwhile are skipped by
    their claim."""
    return host_deliveries_send(seqs=seqs)


@shared_task(
    name="outbox.record_attempt",
    ignore_result=True,
    autoretry_for=DATABASE_ERRORS,
    retry_backoff=2,
    retry_backoff_max=60,
    max_retries=None,
)
def record_attempt(outcome: dict) -> str:
    """The answer to a POST whose sender could not reach the database after it."""
    return attempt_record(AttemptOutcome(**outcome))


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
