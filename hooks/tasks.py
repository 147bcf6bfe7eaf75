"""Celery tasks of the hooks app: thin — take ids, call a service."""

from celery import shared_task
from django.conf import settings

from hooks.services import (
    lifecycle_purge_expired,
    lifecycle_records_write,
    refreshes_due,
    refreshes_recover_lost,
    thread_refresh_run,
)


@shared_task(name="hooks.refresh_thread", acks_late=True)
def refresh_thread(refresh_id: str) -> str:
    """Run one thread refresh once due. Safe twice: the service claims the
    row with a conditional update, and a copy that arrives early finds it
    not due and leaves it to the sweep."""

    return thread_refresh_run(refresh_id=refresh_id)


@shared_task(name="hooks.run_due_refreshes")
def run_due_refreshes() -> int:
    """Beat: enqueue due refreshes whose task was lost or arrived early, and
    recover refreshes whose worker died mid-run."""

    refreshes_recover_lost()
    due = refreshes_due()
    for refresh_id in due:
        refresh_thread.delay(refresh_id)
    return len(due)


@shared_task(name="hooks.purge_expired")
def purge_expired() -> int:

    return lifecycle_purge_expired()


@shared_task(name="hooks.write_records")
def write_records() -> int:
    """Write the firings, ledger entries and timeline entries of lifecycle
    events whose answer is out (sent, coalesced, after each burst)."""

    return lifecycle_records_write()


@shared_task(name="hooks.sweep_records")
def sweep_records() -> int:
    """Beat: the same for events whose wake-up was lost with a process."""

    return lifecycle_records_write(older_than=settings.LIFECYCLE_RECORDS_SWEEP_AFTER)
