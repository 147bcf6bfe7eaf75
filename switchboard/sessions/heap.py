"""Short garbage-collector pauses in a process that holds thousands of streams.

Python's cyclic collector scans every tracked object on a full (generation 2)
collection. With 1,000 streams held, the session worker's heap is large and
long-lived, and a full collection stopped its event loop for 250-320 ms every
few seconds under load (measured: ``bench/push_streams.py``), which was the
whole tail of its event latency. The long-lived part (streams, sessions,
their buffers) is frozen into the permanent generation (``gc.freeze``) once it
has settled, so collections scan only what is new; a full collection of
everything still runs every SESSION_WORKER_GC_FULL seconds, so cyclic garbage
among frozen objects (a closed stream's) is freed, only later.
"""

from __future__ import annotations

import gc
import logging
import time

log = logging.getLogger(__name__)


class HeapKeeper:
    def __init__(self, *, full_every: float) -> None:
        self._full_every = full_every
        self._last_full = time.monotonic()
        self._frozen_for = 0

    def settle(self, held: int) -> None:
        """After a reconcile: freeze when the held streams grew (their objects
        are long-lived now); everything, collected, every ``full_every``."""
        now = time.monotonic()
        if now - self._last_full >= self._full_every:
            started = time.perf_counter()
            gc.unfreeze()
            freed = gc.collect()
            gc.freeze()
            self._last_full, self._frozen_for = now, held
            log.info(
                "full collection: %d freed in %.0f ms; %d objects frozen",
                freed,
                (time.perf_counter() - started) * 1000,
                gc.get_freeze_count(),
            )
        elif held > self._frozen_for:
            gc.collect(1)  # the young garbage goes first, not into the frozen set
            gc.freeze()
            self._frozen_for = held
