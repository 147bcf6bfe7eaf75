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
import os
import threading
import time
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


def broker_backlog() -> int | None:
    """Tasks waiting in the default queue (not yet taken by a worker), or
    None when the broker cannot say. Sweepers ask it before they take an
    old send for a lost one: behind a backlog, a task is in line, not lost."""
    queue = current_app.conf.task_default_queue
    try:
        with current_app.connection_for_read() as conn:
            return int(conn.default_channel.client.llen(queue))
    except Exception:
        log.warning("could not read the length of queue %s", queue, exc_info=True)
        return None


# --- coalesced sends -------------------------------------------------------------------
#
# Some tasks only say "there is work, go and find it" (the worker reads what
# to do from the database). A burst of requests needs one of those, not one
# per request, and the request should not wait for the broker: a daemon
# thread per process sends each wanted name at most once per interval.

_COALESCE_INTERVAL = 0.02


class _Coalescer:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._wanted: set[str] = set()
        self._thread: threading.Thread | None = None
        self._pid = 0

    def want(self, task_name: str) -> None:
        with self._lock:
            self._wanted.add(task_name)
            # A forked worker process inherits the object, not the thread.
            if self._thread is None or self._pid != os.getpid() or not self._thread.is_alive():
                self._pid = os.getpid()
                self._thread = threading.Thread(
                    target=self._run, name="switchboard-coalesced-send", daemon=True
                )
                self._thread.start()
        self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            with self._lock:
                names, self._wanted = self._wanted, set()
            for name in sorted(names):
                try:
                    current_app.send_task(name)
                except Exception:
                    log.warning("could not send %s; beat's sweep will", name, exc_info=True)
            time.sleep(_COALESCE_INTERVAL)


_coalescer = _Coalescer()


def enqueue_coalesced(task_name: str) -> None:
    """Send ``task_name()`` (no arguments) soon, from a background thread,
    once for every burst of calls. Only for tasks that find their work in
    the database and have a beat sweep behind them: a send lost with the
    process delays that work, it does not lose it."""
    _coalescer.want(task_name)
