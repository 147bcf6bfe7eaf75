"""Group database work that arrives from many streams at once.

One frame per transaction costs a fixed handful of statements per event; at
a hundred events a second on a small machine that is the whole budget, and
the queue grows without bound. ``Batched`` hands a function the items that
arrived while the previous call ran, so an idle worker still writes each
frame at once (a batch of one) and a busy one writes bursts in one go.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from switchboard.sessions.db import in_db_thread

log = logging.getLogger(__name__)


class Batched[T, R]:
    """``await batched(item)`` → ``fn([...item...])[i]``, run in a DB thread.

    ``fn`` takes a list and returns one result per item, in order. At most
    ``concurrency`` calls run at once (each holds a connection), each with at
    most ``max_items``. If a batch raises, its items are tried one by one, so
    one bad item fails alone rather than every stream that shared its batch.
    Bound to the event loop it is first awaited on.
    """

    def __init__(
        self, fn: Callable[[list[T]], Sequence[R]], *, max_items: int = 200, concurrency: int = 2
    ) -> None:
        self._call = in_db_thread(fn)
        self._max_items = max_items
        self._concurrency = concurrency
        self._waiting: list[tuple[T, asyncio.Future[R]]] = []
        self._running: set[asyncio.Task[None]] = set()

    async def __call__(self, item: T) -> R:
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._waiting.append((item, future))
        if len(self._running) < self._concurrency:
            task = asyncio.create_task(self._drain())
            self._running.add(task)
            task.add_done_callback(self._running.discard)
        return await future

    async def _drain(self) -> None:
        while self._waiting:
            batch = self._waiting[: self._max_items]
            del self._waiting[: self._max_items]
            await self._run([item for item, _ in batch], [future for _, future in batch])

    async def _run(self, items: list[T], futures: list[asyncio.Future[R]]) -> None:
        try:
            results = await self._call(items)
        except Exception as exc:
            if len(items) > 1:
                log.warning(
                    "a batch of %d failed (%s); taking its items one by one", len(items), exc
                )
                for item, future in zip(items, futures, strict=True):
                    await self._run([item], [future])
                return
            if not futures[0].done():
                futures[0].set_exception(exc)
            return
        for future, result in zip(futures, results, strict=True):
            if not future.done():  # its stream may have been cancelled meanwhile
                future.set_result(result)
