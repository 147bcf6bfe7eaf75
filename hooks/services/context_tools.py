"""``context_tool`` hooks: call the tool on the declaring server, bounded.

All calls of one event run concurrently under one deadline
(``HOOK_CONTEXT_TOOL_TIMEOUT``, connect included), so a lifecycle call
answers within that bound whatever the servers do. Every failure becomes a
``ToolFailure`` whose reason ends up in the answer's ``suppressed``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anyio

from hooks.engine import ToolFailure
from switchboard.mcp import McpCallError, McpSession, McpTarget, run_sync

# Extra wall-clock the overall deadline allows beyond the per-call timeout,
# so the MCP layer's own (better-worded) timeout fires first.
_SLACK = 0.25
_MESSAGE_CHARS = 200


@dataclass(frozen=True)
class ToolCall:
    hook_id: str
    target: McpTarget | None  # None: the host reaches this server itself
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class ToolOutcome:
    result: str | ToolFailure
    latency_ms: int


def _unknown_tool(text: str) -> bool:
    lowered = text.lower()
    return "unknown tool" in lowered or "tool not found" in lowered


def _text_of(result: Any) -> str:
    parts = [
        item.text
        for item in (result.content or [])
        if getattr(item, "type", None) == "text" and isinstance(getattr(item, "text", None), str)
    ]
    return "\n".join(parts)


async def _call(call: ToolCall, timeout: float) -> str | ToolFailure:
    if call.target is None:
        return ToolFailure(
            "context_tool_unreachable", {"message": "the host reaches this server itself"}
        )
    try:
        async with McpSession(call.target) as session:
            result = await session.call_tool(
                name=call.name, arguments=dict(call.arguments), timeout=timeout
            )
    except McpCallError as error:
        if error.category == "timeout":
            return ToolFailure("context_tool_timeout", {"timeout_seconds": timeout})
        if error.category == "mcp_error" and (
            error.code == -32602 and _unknown_tool(error.message)
        ):
            return ToolFailure("context_tool_not_found", {"tool": call.name})
        return ToolFailure(
            "context_tool_error",
            {"category": error.category, "message": error.message[:_MESSAGE_CHARS]},
        )
    text = _text_of(result)
    if result.is_error:
        if _unknown_tool(text):
            return ToolFailure("context_tool_not_found", {"tool": call.name})
        return ToolFailure("context_tool_error", {"message": text[:_MESSAGE_CHARS]})
    if not text:
        return ToolFailure("context_tool_empty", {"tool": call.name})
    return text


async def context_tools_call_async(
    calls: list[ToolCall], *, timeout: float
) -> dict[str, ToolOutcome]:
    """Run every call concurrently; whatever has not finished by the deadline
    is a ``context_tool_timeout``."""
    outcomes: dict[str, ToolOutcome] = {}
    started = time.perf_counter()

    async def one(call: ToolCall) -> None:
        result = await _call(call, timeout)
        outcomes[call.hook_id] = ToolOutcome(result, round((time.perf_counter() - started) * 1000))

    with anyio.move_on_after(timeout + _SLACK):
        async with anyio.create_task_group() as group:
            for call in calls:
                group.start_soon(one, call)
    elapsed = round((time.perf_counter() - started) * 1000)
    for call in calls:
        outcomes.setdefault(
            call.hook_id,
            ToolOutcome(ToolFailure("context_tool_timeout", {"timeout_seconds": timeout}), elapsed),
        )
    return outcomes


def context_tools_call(calls: list[ToolCall], *, timeout: float) -> dict[str, ToolOutcome]:
    """The same from sync code (request threads, Celery)."""
    if not calls:
        return {}
    return run_sync(lambda: context_tools_call_async(calls, timeout=timeout))
