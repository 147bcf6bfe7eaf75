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

import json
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from celery import current_app
from django.db import transaction

from switchboard.background import BackgroundThread

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


# Every task message carries the time it was published (the publishing
# process's ``time.time()``), so a sweeper can tell how far the queue has
# moved (``queue_waiting_since``). Set by ``stamp_sent_at``, which
# ``config.celery`` connects to Celery's ``before_task_publish`` in every process.
SENT_AT_HEADER = "switchboard_sent_at"


def stamp_sent_at(headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    if headers is not None:
        headers.setdefault(SENT_AT_HEADER, time.time())


def queue_waiting_since() -> float | None:
    """When the oldest task still waiting in the default queue was published
    (seconds since the epoch): now when none waits, 0.0 (as old as can be)
    when that task carries no stamp, None when the broker cannot say.

    The queue is first in, first out (kombu pushes on the left and workers
    pop on the right), so a task published before that time has left the
    queue: a worker took it."""
    queue = current_app.conf.task_default_queue
    try:
        with current_app.connection_for_read() as conn:
            oldest = conn.default_channel.client.lindex(queue, -1)
    except Exception:
        log.warning("could not read the oldest task of queue %s", queue, exc_info=True)
        return None
    if oldest is None:
        return time.time()
    try:
        return float(json.loads(oldest)["headers"][SENT_AT_HEADER])
    except (ValueError, TypeError, KeyError):
        return 0.0


# --- coalesced sends -------------------------------------------------------------------
#
# Some tasks only say "there is work, go and find it" (the worker reads what
# to do from the database). A burst of requests needs one of those, not one
# per request, and the request should not wait for the broker: a daemon
# thread per process sends each wanted name at most once per interval.

_COALESCE_INTERVAL = 0.02


def _send_named(name: str) -> None:
    current_app.send_task(name)


class _Coalescer(BackgroundThread):
    """Restarted after a fork or when its thread died, flushed at exit
    (``switchboard.background``); ``send`` is swappable for tests."""

    thread_name = "switchboard-coalesced-send"
    interval = _COALESCE_INTERVAL

    def __init__(self, send: Callable[[str], None] = _send_named) -> None:
        self.send = send
        super().__init__()

    def _reset(self) -> None:
        super()._reset()
        self._wanted: set[str] = set()

    def want(self, task_name: str) -> None:
        self._ensure_this_process()
        with self._lock:
            self._wanted.add(task_name)
        self.wake()

    def flush(self) -> None:
        with self._lock:
            names, self._wanted = self._wanted, set()
        for name in sorted(names):
            try:
                self.send(name)
            except Exception:
                log.warning("could not send %s; beat's sweep will", name, exc_info=True)


_coalescer = _Coalescer()


def enqueue_coalesced(task_name: str) -> None:
    """Send ``task_name()`` (no arguments) soon, from a background thread,
    once for every burst of calls. Only for tasks that find their work in
    the database and have a beat sweep behind them: a send lost with the
    process delays that work, it does not lose it."""
    _coalescer.want(task_name)
