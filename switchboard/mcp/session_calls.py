"""The conversation, tools and resources, and tasks calls, as a mixin of
``McpSession`` (as ``session_events`` holds the events extension's): the
session owns the connection and the request plumbing (``_request``,
``_call``); this module owns what each of these methods sends and reads."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import mcp_types as types
from pydantic import BaseModel

from switchboard.mcp import wire
from switchboard.mcp.session_events import _all_pages, _present

if TYPE_CHECKING:
    from mcp.client import Client

    from switchboard.mcp.target import McpTarget

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")


class FeatureCalls:
    """Mixed into ``McpSession``; relies on its ``_request``, ``_call``,
    ``client``, ``target`` and ``_call_timeout``."""

    target: McpTarget
    _call_timeout: float

    if TYPE_CHECKING:

        @property
        def client(self) -> Client: ...

        async def _request(
            self, request: Any, result_type: type[T], *, timeout: float | None
        ) -> T: ...

        async def _call(
            self,
            method: str,
            fn: Callable[[], Awaitable[R]],
            *,
            timeout: float,
            sdk_timeout: bool = True,
            target: str | None = None,
        ) -> R: ...

    # --- conversation --------------------------------------------------------------------

    async def user_message(
        self,
        *,
        message_id: str,
        content: str,
        recent_history: Sequence[Mapping[str, str] | wire.HistoryItem] | None = None,
        timeout: float | None = None,
    ) -> wire.UserMessageResult:
        """``conversation/userMessage`` (the conversation-events SEP): returns ``context`` and
        ``structured_context.memories``. Use a short ``timeout`` (the SEP suggests 500 ms)."""
        history = (
            [wire.HistoryItem.model_validate(item) for item in recent_history]
            if recent_history is not None
            else None
        )
        params = wire.UserMessageParams(
            message_id=message_id, content=content, **_present(recent_history=history)
        )
        return await self._request(
            wire.UserMessageRequest(params=params), wire.UserMessageResult, timeout=timeout
        )

    # --- tools & resources -------------------------------------------------------------

    async def list_tools(
        self, *, meta: Mapping[str, Any] | None = None, timeout: float | None = None
    ) -> list[types.Tool]:
        """Every page of ``tools/list``; ``meta`` goes in each request's ``_meta``
        (e.g. ``threads.thread_meta(thread_id)`` for a thread-scoped refresh)."""
        client = self.client
        meta_dict = dict(meta) if meta else None
        tools: list[types.Tool] = []

        async def page(cursor: str | None) -> tuple[list[types.Tool], str | None]:
            result = await self._call(
                "tools/list",
                lambda: client.list_tools(cursor=cursor, meta=meta_dict),  # type: ignore[arg-type]
                timeout=self._call_timeout if timeout is None else timeout,
                sdk_timeout=timeout is None,
            )
            return list(result.tools), result.next_cursor

        await _all_pages(page, tools, method="tools/list", server=self.target.safe_url)
        return tools

    async def list_resources(
        self, *, meta: Mapping[str, Any] | None = None, timeout: float | None = None
    ) -> list[types.Resource]:
        """Every page of ``resources/list``; ``meta`` as for ``list_tools``."""
        client = self.client
        meta_dict = dict(meta) if meta else None
        resources: list[types.Resource] = []

        async def page(cursor: str | None) -> tuple[list[types.Resource], str | None]:
            result = await self._call(
                "resources/list",
                lambda: client.list_resources(cursor=cursor, meta=meta_dict),  # type: ignore[arg-type]
                timeout=self._call_timeout if timeout is None else timeout,
                sdk_timeout=timeout is None,
            )
            return list(result.resources), result.next_cursor

        await _all_pages(page, resources, method="resources/list", server=self.target.safe_url)
        return resources

    async def call_tool(
        self,
        *,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> types.CallToolResult:
        """``tools/call``. A tool-level failure is a result with ``is_error``,
        not an exception; see ``threads.refresh_thread_id`` for the thread-scoped refresh."""
        client = self.client
        seconds = self._call_timeout if timeout is None else timeout
        return await self._call(
            "tools/call",
            lambda: client.call_tool(
                name,
                dict(arguments or {}),
                read_timeout_seconds=seconds,
                meta=dict(meta) if meta else None,  # type: ignore[arg-type]
            ),
            timeout=seconds,
            target=name,
        )

    # --- tasks (2025-11-25; an extension from 2026-07-28) ----------------------------------

    async def task_get(self, *, task_id: str, timeout: float | None = None) -> types.GetTaskResult:
        """``tasks/get``: a task's status. The console asks it for tasks whose
        event source it follows (conformance case 49): the task's status comes from here,
        never from its events."""
        params = types.GetTaskRequestParams(task_id=task_id)
        return await self._request(
            types.GetTaskRequest(params=params), types.GetTaskResult, timeout=timeout
        )
