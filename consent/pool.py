"""Open MCP sessions kept for the conversation fan-out.

A user message must reach every consented server within a budget of a few
hundred milliseconds. Opening a session per message (discover/initialize,
then the call, then the closing DELETE) costs several round trips and, at 20
servers, tens of milliseconds of CPU in one event loop. So each (server,
credentials) pair keeps one ``McpSession`` open, owned by a task of its own
(the SDK binds a session to the task that entered it); messages are sent
from the callers' tasks over that session, concurrently.

- Pools are per event loop: a session cannot outlive or leave its loop
  (daphne has one loop; a test client's async_to_sync makes one per request,
  and its tasks are cancelled with it).
- A session that fails, or stays idle for CONVERSATION_POOL_IDLE, closes and
  leaves the pool; the next message opens a new one.
- Credentials are part of the key as a hash only; they live in the session's
  HTTP client and nowhere else.
- Sync callers (a lifecycle request's context tools) have no loop that
  outlives the call: their sessions live on one loop of the process, run by
  a thread of its own (``pool_submit``), so the next event reuses them too.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import json
import logging
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

from django.conf import settings

from switchboard.background import ForkLocal
from switchboard.mcp.errors import McpCallError
from switchboard.mcp.session import McpSession, McpTarget

log = logging.getLogger(__name__)
T = TypeVar("T")
MAX_SESSIONS = 512
# A server that refuses the connection may be starting; ``ready(retry_for=)``
# tries again after this pause.
_NOT_UP_YET = frozenset({"connection_refused", "http_5xx"})
_RETRY_PAUSE = 0.1


def _key(server_id: str, url: str, headers: Mapping[str, str]) -> tuple[str, str, str]:
    digest = hashlib.sha256(json.dumps(dict(headers), sort_keys=True).encode()).hexdigest()
    return (server_id, url, digest)


class _Held:
    """One session and the task that owns it."""

    def __init__(self, target: McpTarget, idle: float, on_exit: Callable[[_Held], None]):
        self.target = target
        self.idle = idle
        self.last_used = time.monotonic()
        self.ready: asyncio.Future[McpSession] = asyncio.get_running_loop().create_future()
        self.closing = asyncio.Event()
        self.dead = False
        self._on_exit = on_exit
        self.task = asyncio.get_running_loop().create_task(self._own(), name=f"mcp-pool {target!r}")

    async def _own(self) -> None:
        try:
            async with McpSession(self.target) as session:
                self.ready.set_result(session)
                while not self.closing.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.closing.wait(), timeout=min(self.idle, 30))
                    if time.monotonic() - self.last_used >= self.idle:
                        break
        except BaseException as exc:  # connect failure, transport death, cancellation
            if not self.ready.done():
                self.ready.set_exception(
                    exc
                    if isinstance(exc, McpCallError)
                    else McpCallError("protocol", str(exc)[:200])
                )
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self.dead = True
            self._on_exit(self)

    async def session(self) -> McpSession:
        self.last_used = time.monotonic()
        return await asyncio.shield(self.ready)


class SessionPool:
    """Sessions of one event loop, least recently used evicted first."""

    def __init__(self) -> None:
        self._held: OrderedDict[tuple[str, str, str], _Held] = OrderedDict()

    def _forget(self, held: _Held) -> None:
        for key, value in list(self._held.items()):
            if value is held:
                del self._held[key]

    def _get(self, *, server_id: str, url: str, headers: Mapping[str, str]) -> _Held:
        key = _key(server_id, url, headers)
        held = self._held.get(key)
        if held is not None and not held.dead:
            self._held.move_to_end(key)
            return held
        target = McpTarget(url=url, headers=dict(headers), server_id=server_id)
        held = _Held(target, idle=settings.CONVERSATION_POOL_IDLE, on_exit=self._forget)
        self._held[key] = held
        while len(self._held) > MAX_SESSIONS:
            _, oldest = self._held.popitem(last=False)
            oldest.closing.set()
        return held

    def open_session(
        self, *, server_id: str, url: str, headers: Mapping[str, str]
    ) -> McpSession | None:
        """The session already open for this key, else None; no waiting and
        nothing opened. Safe from another thread (the fan-out's plan reads it
        from the request's sync thread): one dict lookup and a done future
        read, each atomic under the GIL."""
        held = self._held.get(_key(server_id, url, headers))
        if held is None or held.dead or not held.ready.done() or held.ready.cancelled():
            return None
        if held.ready.exception() is not None:
            return None
        return held.ready.result()

    async def ready(
        self,
        *,
        server_id: str,
        url: str,
        headers: Mapping[str, str],
        retry_for: float = 0.0,
    ) -> tuple[McpSession, bool]:
        """The pooled session (opening it if needed) and whether it had to
        be waited for. ``retry_for``: a server that refuses the connection
        (still starting) is tried again until that many seconds have passed."""
        deadline = time.monotonic() + retry_for
        while True:
            held = self._get(server_id=server_id, url=url, headers=headers)
            waited = not held.ready.done()
            try:
                return await held.session(), waited
            except McpCallError as error:
                if error.category not in _NOT_UP_YET or time.monotonic() >= deadline:
                    raise
                await asyncio.sleep(min(_RETRY_PAUSE, max(deadline - time.monotonic(), 0)))

    async def call(
        self,
        *,
        server_id: str,
        url: str,
        headers: Mapping[str, str],
        session: McpSession,
        call: Callable[[McpSession], Awaitable[T]],
    ) -> T:
        """Run ``call`` on a session ``ready`` gave; one that broke under the
        call is dropped so the next one reconnects."""
        try:
            return await call(session)
        except McpCallError as error:
            if error.category not in ("timeout", "mcp_error"):
                held = self._held.get(_key(server_id, url, headers))
                if held is not None:
                    held.closing.set()
                    self._forget(held)
            raise

    async def close(self) -> None:
        held = list(self._held.values())
        self._held.clear()
        for item in held:
            item.closing.set()
        for item in held:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(item.task), timeout=5)

    def __len__(self) -> int:
        return len(self._held)


_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, SessionPool] = (
    weakref.WeakKeyDictionary()
)


def pool_for_loop() -> SessionPool:
    loop = asyncio.get_running_loop()
    pool = _pools.get(loop)
    if pool is None:
        pool = _pools[loop] = SessionPool()
    return pool


# --- sessions kept for sync callers ---------------------------------------------------
#
# A request thread or a Celery task has no event loop of its own that lives
# longer than the call. Their pooled sessions live on one loop, run by a
# thread of the process, started on first use; callers hand it coroutines.


class _BackgroundLoop(ForkLocal):
    """The process's loop for sync callers' sessions and its thread. A forked
    child (Celery's prefork pool) starts its own: the parent's thread is not
    copied, and the parent's sessions (sockets, TLS) stay the parent's."""

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._running: tuple[asyncio.AbstractEventLoop, threading.Thread] | None = None

    def loop(self) -> asyncio.AbstractEventLoop:
        self._ensure_this_process()
        with self._lock:
            if self._running is None or not self._running[1].is_alive():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="mcp-pool-loop", daemon=True
                )
                thread.start()
                self._running = (loop, thread)
            return self._running[0]


_background = _BackgroundLoop()


def pool_submit[R](fn: Callable[[SessionPool], Awaitable[R]]) -> concurrent.futures.Future[R]:
    """Run ``fn(pool)`` on the process's pooled-session loop; the caller
    waits on the future (with a timeout of its own)."""

    async def main() -> R:
        return await fn(pool_for_loop())

    return asyncio.run_coroutine_threadsafe(main(), _background.loop())
