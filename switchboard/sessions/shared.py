"""One MCP session per server and principal for every stream a worker holds.

A session worker may hold a thousand push streams, most of them on a few
servers for a few principals. A session each would cost a connection pool,
an SDK client and its tasks per stream (hundreds of KB apiece); the spec
allows many requests, streams included, on one session, and our client
routes each notification to its stream by ``_meta`` subscriptionId. So
streams borrow the session of their ``(url, headers)``:

- The first borrower opens it in a task of its own (the SDK binds a session
  to the task that entered it), which keeps it open until the last borrower
  returns it.
- When the connection dies, every stream on it fails and reconnects; the
  dead session is never lent again, and the next borrower opens a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
from collections.abc import AsyncIterator

from switchboard.mcp import McpCallError, McpSession, McpTarget


def _key(target: McpTarget) -> str:
    headers = json.dumps(sorted(dict(target.headers).items()))
    return hashlib.sha256(f"{target.url}\n{target.mode}\n{headers}".encode()).hexdigest()


# Streams one shared session may carry (each holds an HTTP connection).
MAX_STREAMS_PER_SESSION = 10_000


class _Shared:
    def __init__(self, target: McpTarget) -> None:
        self.target = dataclasses.replace(target, max_connections=MAX_STREAMS_PER_SESSION + 10)
        self.borrowers = 0
        self.session: McpSession | None = None
        self.error: BaseException | None = None
        self.dead = False
        self._ready = asyncio.Event()
        self._release = asyncio.Event()
        self.task = asyncio.create_task(self._own(), name=f"mcp-session {target.safe_url}")

    async def _own(self) -> None:
        try:
            async with McpSession(self.target) as session:
                self.session = session
                self._ready.set()
                try:
                    await self._release.wait()
                finally:
                    # Closing (returned, or the connection died): lend it no more.
                    self.dead = True
        except BaseException as exc:  # the connection's end, whatever it was
            self.error = exc
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self.dead = True
            self._ready.set()

    async def ready(self) -> McpSession:
        await self._ready.wait()
        if self.session is None or self.dead:
            if isinstance(self.error, McpCallError):
                raise self.error
            raise McpCallError(
                "connection_refused",
                f"the shared session closed: {self.error!r}",
                server=self.target.safe_url,
            )
        return self.session

    def release(self) -> None:
        self._release.set()


class SharedSessions:
    def __init__(self) -> None:
        self._open: dict[str, _Shared] = {}

    @contextlib.asynccontextmanager
    async def borrow(self, target: McpTarget) -> AsyncIterator[McpSession]:
        key = _key(target)
        shared = self._open.get(key)
        if shared is None or shared.dead:
            shared = self._open[key] = _Shared(target)
        shared.borrowers += 1
        try:
            yield await shared.ready()
        finally:
            shared.borrowers -= 1
            if shared.borrowers == 0:
                if self._open.get(key) is shared:
                    del self._open[key]
                shared.release()

    @property
    def open_count(self) -> int:
        return sum(1 for shared in self._open.values() if not shared.dead)

    async def close(self) -> None:
        for shared in list(self._open.values()):
            shared.release()
        for shared in list(self._open.values()):
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(shared.task, timeout=5)
        self._open.clear()
