"""Per-process state that must not cross a fork, and the background threads
that send from every process.

Why one home: three daemon threads send on behalf of the code that runs in
a process (``switchboard.queue``'s coalesced Celery sends, the outbox's
publisher, the broadcast loop), and Celery's prefork pool forks its workers
from a parent that may already run them. A forked child inherits the
objects but not their threads, and perhaps a lock that one of the parent's
threads held at the moment of the fork. Each used to answer that in its
own way (or not at all: a dead thread stayed dead, and only one of them sent
what waited when the process ended). Now:

- ``ForkLocal``: the object's per-process state is set up by ``_reset()``,
  at construction and again in every child after a fork (one
  ``os.register_at_fork`` for all of them). The child starts empty: what
  the parent had waiting is the parent's to send, and its sockets and TLS
  sessions stay the parent's.
- ``BackgroundThread``: one daemon thread per process on top of that,
  started when first needed, started again in a forked child and when it
  has died (an error escaped its loop), and flushed when the process ends
  normally (``atexit``). A killed process loses what waited; every sender
  here only speeds up work that a sweeper also finds in the database.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import weakref

log = logging.getLogger(__name__)

_instances: weakref.WeakSet[ForkLocal] = weakref.WeakSet()


class ForkLocal:
    """State of this process only; subclasses set it up in ``_reset``."""

    def __init__(self) -> None:
        self._pid = os.getpid()
        self._reset()
        _instances.add(self)

    def _reset(self) -> None:
        """Set up this process's state: at construction and after a fork."""

    def _forked(self) -> None:
        self._pid = os.getpid()
        self._reset()

    def _ensure_this_process(self) -> None:
        # A fork that bypassed os.fork() (and so the hook below) still shows
        # as a changed pid.
        if self._pid != os.getpid():
            self._forked()


def _reset_after_fork() -> None:
    for instance in list(_instances):
        instance._forked()


os.register_at_fork(after_in_child=_reset_after_fork)


class BackgroundThread(ForkLocal):
    """A daemon thread per process that sends what the process hands it.

    Subclasses keep what waits under ``self._lock`` and implement ``flush``
    (send what waits now, in the calling thread). By default the thread
    flushes whenever ``wake`` is called, at most once per ``interval``
    seconds; a subclass with another kind of loop overrides ``_run`` (and
    ``_starting`` to prepare what a new thread needs)."""

    thread_name = "background"
    interval = 0.0

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._thread_lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def _ensure_running(self) -> None:
        self._ensure_this_process()
        with self._thread_lock:
            if self._thread is not None and self._thread.is_alive():
                return
            if self._thread is not None:
                log.warning("the %s thread had stopped; starting it again", self.thread_name)
            self._starting()
            self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
            self._thread.start()

    def running(self) -> bool:
        """Whether this process's thread is alive (tests, exit)."""
        return self._pid == os.getpid() and self._thread is not None and self._thread.is_alive()

    def wake(self) -> None:
        """Have the thread flush soon (starting it when needed); never blocks."""
        self._ensure_running()
        self._wake.set()

    def _starting(self) -> None:
        """Prepare what a new thread needs, before it starts."""

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            self.flush()
            time.sleep(self.interval)

    def flush(self) -> None:
        """Send what waits now, in the calling thread (the sender's, or at exit)."""
        raise NotImplementedError


def _flush_at_exit() -> None:
    """A process that ends normally sends what still waits."""
    for instance in list(_instances):
        if isinstance(instance, BackgroundThread) and instance._pid == os.getpid():
            try:
                instance.flush()
            except Exception:
                log.warning("could not flush the %s thread at exit", instance.thread_name)


atexit.register(_flush_at_exit)
