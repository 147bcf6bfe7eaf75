"""What a hold tells the worker about its stream: connected, alive, failed.

Writes go to the lease row (health for staff) and are rate-limited: a frame
every few milliseconds must not become a database write each.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from switchboard.sessions import leases
from switchboard.sessions.db import in_db_thread
from switchboard.sessions.shared import SharedSessions

# Liveness is judged in tens of seconds; a write per frame would cost more
# than it tells.
_FRAME_WRITE_EVERY = 5.0


class StreamReport:
    """Handed to a kind's ``hold``: report health through it, and borrow the
    worker's MCP sessions from ``sessions`` (one per server and principal)."""

    def __init__(
        self,
        *,
        key: str,
        holder: str,
        sessions: SharedSessions,
        health_changed: Callable[[], None] | None = None,
    ) -> None:
        self.key = key
        self.holder = holder
        self.sessions = sessions
        self._health_changed = health_changed
        self._last_frame_write = 0.0
        self.connected_at: float | None = None

    async def connected(self) -> None:
        self.connected_at = time.monotonic()
        self._last_frame_write = self.connected_at
        await in_db_thread(leases.stream_connected)(key=self.key, holder=self.holder)
        await self.announce()

    async def announce(self) -> None:
        if self._health_changed is not None:
            await in_db_thread(self._health_changed)()

    async def frame(self) -> None:
        now = time.monotonic()
        if now - self._last_frame_write < _FRAME_WRITE_EVERY:
            return
        self._last_frame_write = now
        await in_db_thread(leases.stream_frame)(key=self.key, holder=self.holder)

    def connected_for(self) -> float:
        return 0.0 if self.connected_at is None else time.monotonic() - self.connected_at
