"""Handing pending outbox rows to Celery: a few tasks for a burst of rows,
sent by one thread per process.

Why: publishing a task costs a broker round trip and the CPU to build the
message, about as much as the webhook receiver's whole database work for a
delivery; and it ran on the request's thread after the commit. Now the
committing thread only adds the row's ``seq`` to a list, and the process's
publisher thread sends everything that gathered while it was sending the
previous batch as one ``outbox.send_host_deliveries`` task (a lone row as
``outbox.send_host_delivery``, as before). A lone row still goes at once:
nothing waits for a batch to fill. Under load the thread sends at most once
per GATHER, so rows arriving a few milliseconds apart (a steady stream, not
only a burst) still go together: the worker sends a task's rows together
(``outbox.services.bursts``), at about a third of a lone row's cost each
(measured by ``bench/load.py``: 40 ms of task time per lone row, 16 per row
in tasks of three, on a loaded machine).

Losing a publish loses no delivery: the row is ``pending`` with its
``enqueued_at`` before it is handed over, so when the broker refuses, the
process exits first or too many rows wait, the sweeper
(``host_deliveries_sweep``) enqueues it again after
HOST_DELIVERY_REQUEUE_AFTER. A row published twice is harmless (the send
claims it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from switchboard.background import BackgroundThread

log = logging.getLogger(__name__)

# Rows per task at most: one task sends its rows one after the other, so a
# burst still spreads over the workers, and a task's rows (each up to
# HOST_DELIVERY_TIMEOUT) stay well inside Celery's time limit.
BATCH_MAX = 20
# Seconds between two sends of the publisher at least: what arrives
# meanwhile goes in the next. Small beside a delivery's forwarding lag.
GATHER = 0.1
# Rows waiting at most while the broker does not answer; beyond it the
# oldest are left to the sweeper rather than held in memory.
WAITING_MAX = 10_000

SEND_ONE = "outbox.send_host_delivery"
SEND_MANY = "outbox.send_host_deliveries"


def _send_task(name: str, args: list) -> None:
    from celery import current_app

    current_app.send_task(name, args=args)


class Publisher(BackgroundThread):
    """The per-process publisher (``publisher``); ``send`` is swappable for
    tests. Restarted after a fork or when its thread died, flushed at exit
    (``switchboard.background``)."""

    thread_name = "outbox-publisher"
    interval = GATHER

    def __init__(self, send: Callable[[str, list], None] = _send_task) -> None:
        self.send = send
        super().__init__()

    def _reset(self) -> None:
        super()._reset()
        self._waiting: list[int] = []

    def publish(self, seqs: Iterable[int]) -> None:
        """Have the rows sent soon; never blocks on the broker, never raises."""
        self._ensure_this_process()
        with self._lock:
            self._waiting.extend(seqs)
            if len(self._waiting) > WAITING_MAX:
                dropped = len(self._waiting) - WAITING_MAX
                del self._waiting[:dropped]
                log.warning("%d outbox rows not published; the sweeper will send them", dropped)
        self.wake()

    def flush(self) -> None:
        """Send what waits now, in this thread (the publisher's, or at exit)."""
        with self._lock:
            batch, self._waiting = self._waiting, []
        for start in range(0, len(batch), BATCH_MAX):
            chunk = batch[start : start + BATCH_MAX]
            name, args = (SEND_ONE, chunk) if len(chunk) == 1 else (SEND_MANY, [chunk])
            try:
                self.send(name, args)
            except Exception:
                log.warning(
                    "could not enqueue %s%r; the sweeper will send those rows",
                    name,
                    args,
                    exc_info=True,
                )


publisher = Publisher()
