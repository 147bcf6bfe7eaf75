"""Synchronous façade for Celery tasks (and other sync code).

Each call opens a fresh ``McpSession`` on a fresh event loop and closes both
before returning: an SDK session is bound to the loop and task group it was
entered on, so nothing may be shared across tasks or task runs. The
coroutine must not touch the database: do ORM work before (read the target)
and after (store the result), in the calling thread.

If the calling thread already runs an event loop (e.g. a sync helper called
from async code, or the Playwright sync API in tests), the coroutine runs on
its own loop in a short-lived worker thread instead, because ``asyncio.run``
refuses to nest.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from switchboard.mcp import wire
from switchboard.mcp.capabilities import ServerCapabilities
from switchboard.mcp.session import UNSET, McpSession, McpTarget, Unset

__all__ = ["McpSyncClient", "run_sync", "with_session"]


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_sync[T](fn: Callable[[], Awaitable[T]], /) -> T:
    """Run ``fn()`` to completion on a new event loop and return its result.

    Exceptions (e.g. ``McpCallError``) propagate unchanged.
    """

    async def main() -> T:
        return await fn()

    if not _loop_running():
        return asyncio.run(main())
    box: dict[str, Any] = {}

    def worker() -> None:
        try:
            box["value"] = asyncio.run(main())
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=worker, name="switchboard-mcp-sync", daemon=True)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def with_session[T](target: McpTarget, fn: Callable[[McpSession], Awaitable[T]], /) -> T:
    """Open a session to ``target``, run ``fn(session)``, close it; synchronously.

    Use this to do several calls over one connection in a task run::

        def sync_server(server_id):
            target = build_target(server_id)            # ORM here
            caps, events = with_session(target, _read)  # no ORM inside _read
            save(server_id, caps, events)               # ORM here

        async def _read(s):
            return await s.capabilities(), await s.list_all_events()
    """

    async def main() -> T:
        async with McpSession(target) as session:
            return await fn(session)

    return run_sync(main)


class McpSyncClient:
    """One-call-per-connection convenience over ``with_session``.

    Every method opens and closes its own session. For several calls in one
    task run, prefer ``with_session`` (one connect instead of several).
    """

    def __init__(self, target: McpTarget, /) -> None:
        self.target = target

    def __repr__(self) -> str:
        return f"McpSyncClient({self.target!r})"

    def capabilities(self) -> ServerCapabilities:
        return with_session(self.target, lambda s: s.capabilities())

    def list_all_events(self) -> list[wire.EventDescriptor]:
        return with_session(self.target, lambda s: s.list_all_events())

    def poll(self, **kwargs: Any) -> wire.EventsPollResult:
        return with_session(self.target, lambda s: s.poll(**kwargs))

    def subscribe(
        self,
        *,
        name: str,
        arguments: Mapping[str, Any] | None,
        url: str,
        secret: str,
        cursor: str | None = None,
        max_age_ms: int | None = None,
        ttl_ms: int | None | Unset = UNSET,
    ) -> wire.EventsSubscribeResult:
        return with_session(
            self.target,
            lambda s: s.subscribe(
                name=name,
                arguments=arguments,
                url=url,
                secret=secret,
                cursor=cursor,
                max_age_ms=max_age_ms,
                ttl_ms=ttl_ms,
            ),
        )

    def unsubscribe(self, *, name: str, arguments: Mapping[str, Any] | None, url: str) -> None:
        return with_session(
            self.target, lambda s: s.unsubscribe(name=name, arguments=arguments, url=url)
        )

    def user_message(
        self,
        *,
        message_id: str,
        content: str,
        recent_history: Sequence[Mapping[str, str]] | None = None,
        timeout: float | None = None,
    ) -> wire.UserMessageResult:
        return with_session(
            self.target,
            lambda s: s.user_message(
                message_id=message_id,
                content=content,
                recent_history=recent_history,
                timeout=timeout,
            ),
        )

    def list_tools(self, *, meta: Mapping[str, Any] | None = None) -> list[Any]:
        return with_session(self.target, lambda s: s.list_tools(meta=meta))

    def list_resources(self, *, meta: Mapping[str, Any] | None = None) -> list[Any]:
        return with_session(self.target, lambda s: s.list_resources(meta=meta))

    def call_tool(
        self,
        *,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> Any:
        return with_session(
            self.target, lambda s: s.call_tool(name=name, arguments=arguments, meta=meta)
        )

    def task_get(self, *, task_id: str) -> Any:
        return with_session(self.target, lambda s: s.task_get(task_id=task_id))
