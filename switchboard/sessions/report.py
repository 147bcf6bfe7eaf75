"""What a hold tells the worker about its stream: connected, alive, failed.

Writes go to the lease row (health for staff) and are rate-limited: a frame
every few milliseconds must not become a database write each.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from asgiref.sync import sync_to_async

from switchboard.sessions import leases

# Liveness is judged in tens of seconds; a write per frame would cost more
# than it tells.
_FRAME_WRITE_EVERY = 5.0


class StreamReport:
    def __init__(
        self, *, key: str, holder: str, health_changed: Callable[[], None] | None = None
    ) -> None:
        self.key = key
        self.holder = holder
        self._health_changed = health_changed
        self._last_frame_write = 0.0
        self.connected_at: float | None = None

    async def connected(self) -> None:
        self.connected_at = time.monotonic()
        self._last_frame_write = self.connected_at
        await sync_to_async(leases.stream_connected)(key=self.key, holder=self.holder)
        await self.announce()

    async def announce(self) -> None:
        if self._health_changed is not None:
            await sync_to_async(self._health_changed)()

    async def frame(self) -> None:
        now = time.monotonic()
        if now - self._last_frame_write < _FRAME_WRITE_EVERY:
            return
        self._last_frame_write = now
        await sync_to_async(leases.stream_frame)(key=self.key, holder=self.holder)

    def connected_for(self) -> float:
        return 0.0 if self.connected_at is None else time.monotonic() - self.connected_at
