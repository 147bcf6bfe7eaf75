"""Short garbage-collector pauses while a thousand streams are open.

Each open ``events/stream`` keeps its request, task, queue and the SDK's
buffers alive. With a thousand of them the heap is large and long-lived, and
a full (generation 2) collection, which scans all of it, stopped the event
loop for 100-200 ms every ~30 s (a ``gc.callbacks`` probe while
``bench/push_streams.py`` ran): every event emitted meanwhile waited and
then went out in one burst, which the client then took in one by one.

So what has settled is frozen out of the collector's scans (``gc.freeze``):
whenever more streams are open than at the last freeze, after collecting the
young generations (young garbage is freed, not frozen). In a steady state it
does nothing: the routine collections then scan only what came since, which
is little. Frozen objects are still freed by reference counting; only cycles
among them wait, and the cycles that matter are those of closed streams:
once at least half the streams open at the last full collection have
closed, everything is unfrozen, collected and frozen again.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable

SETTLE_EVERY = 5.0


class HeapKeeper:
    """``settle()`` now and then (``run``); ``open_streams`` counts the
    streams open now."""

    def __init__(self, open_streams: Callable[[], int]) -> None:
        self._open_streams = open_streams
        self._frozen_for = 0  # streams open at the last freeze
        self._peak = 0  # most streams open since the last full collection

    def settle(self) -> None:
        open_now = self._open_streams()
        closed = self._peak - open_now
        if closed > 0 and closed * 2 >= self._peak:
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            self._peak = self._frozen_for = open_now
        elif open_now > self._frozen_for:
            gc.collect(1)
            gc.freeze()
            self._frozen_for = open_now
            self._peak = max(self._peak, open_now)

    async def run(self, every: float = SETTLE_EVERY) -> None:
        while True:
            await asyncio.sleep(every)
            self.settle()
