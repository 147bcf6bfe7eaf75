"""What a hold tells the worker about its stream: connected, alive, failed.

Writes go to the lease row (health for staff). A frame is not written from
here: that would put a database round trip before every event (and a write
per frame); the worker notes which streams had frames and stamps them with
its lease renewal (``leases_renew``), every SESSION_WORKER_RECONCILE.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from switchboard.sessions import leases
from switchboard.sessions.db import in_db_thread
from switchboard.sessions.shared import SharedSessions


class StreamReport:
    """Handed to a kind's ``hold``: report health through it, and borrow the
    worker's MCP sessions from ``sessions`` (one per server and principal)."""

    def __init__(
        self,
        *,
        key: str,
        holder: str,
        sessions: SharedSessions,
        framed: set[str],
        health_changed: Callable[[], None] | None = None,
    ) -> None:
        self.key = key
        self.holder = holder
        self.sessions = sessions
        self._framed = framed  # the worker's: streams with a frame since its last renewal
        self._health_changed = health_changed
        # Set by the worker when a wake-up names this stream while it is held
        # (a hold that manages several things re-reads what it should do).
        self.changed = asyncio.Event()
        self.connected_at: float | None = None

    async def connected(self) -> None:
        self.connected_at = time.monotonic()
        await in_db_thread(leases.stream_connected)(key=self.key, holder=self.holder)
        await self.announce()

    async def announce(self) -> None:
        if self._health_changed is not None:
            await in_db_thread(self._health_changed)()

    def frame(self) -> None:
        """A frame arrived (no I/O: see the module docstring)."""
        self._framed.add(self.key)

    def connected_for(self) -> float:
        return 0.0 if self.connected_at is None else time.monotonic() - self.connected_at
