"""Sending Celery tasks from services, by name, after commit.

Services name the task instead of importing it: task modules import services
(tasks are thin: load, call a service), so the reverse import would make a
circle. The send waits for the current transaction to commit, so a worker
never looks for a row that is not there yet; outside a transaction it happens
at once. A broker that refuses the send is logged, not raised: every queued
job has a row in the database and a beat sweeper that finds it by its state,
so a lost send delays work and loses none.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from celery import current_app
from django.db import transaction

log = logging.getLogger(__name__)


def enqueue(task_name: str, *args: Any, countdown: float | None = None) -> None:
    """Run ``task_name(*args)`` on a worker once the transaction commits."""
    enqueue_each(task_name, [args], countdown=countdown)


def enqueue_each(
    task_name: str, calls: Iterable[tuple[Any, ...]], *, countdown: float | None = None
) -> None:
    """One task per argument tuple, sent together after commit."""
    calls = [tuple(call) for call in calls]
    if not calls:
        return

    def send() -> None:
        for args in calls:
            try:
                current_app.send_task(task_name, args=list(args), countdown=countdown)
            except Exception:
                log.warning(
                    "could not enqueue %s%r; its sweeper will find the work",
                    task_name,
                    args,
                    exc_info=True,
                )

    transaction.on_commit(send)
