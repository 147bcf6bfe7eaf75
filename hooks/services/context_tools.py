"""``context_tool`` hooks: call the tool on the declaring server, bounded.

1. Sessions come from the process's pool (``consent.pool``, the fan-out's
   kind): a ``session_start`` hook with a context tool costs a call, not a
   handshake, once its server's session is open.
2. Readiness: a server still starting (it refuses the connection, or its
   handshake is not done) is waited for up to ``ready_wait`` seconds
   (``HOOK_READINESS_WAIT``, for ``session_start``); a server not ready by
   then is *late* (``context_tool_late``), and its session goes on opening
   in the pool for the next event. Other events wait no longer than the
   call's own timeout, connect included, as before.
3. Right before each call leaves, ``consent.enforce`` is asked whether the
   user's ``hooks`` grant still approves the hook and the server is not
   blocked; a refusal (or consent that cannot be read) sends nothing and
   is the hook's suppression reason.
4. All calls of one event run concurrently under one deadline
   (``HOOK_CONTEXT_TOOL_TIMEOUT`` past readiness); every failure becomes a
   ``ToolFailure`` whose reason ends up in the answer's ``suppressed``.
"""

from __future__ import annotations

import concurrent.futures
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from consent.enforce import outbound_check
from consent.models import Scope
from consent.pool import SessionPool, pool_submit
from hooks.engine import ToolFailure
from switchboard.mcp import McpCallError, McpSession, McpTarget

# Extra wall-clock the overall deadline allows beyond the per-call timeout,
# so the MCP layer's own (better-worded) timeout fires first.
_SLACK = 0.25
_MESSAGE_CHARS = 200

LATE = "context_tool_late"


@dataclass(frozen=True)
class ToolCall:
    hook_id: str
    server_id: str
    user_id: str
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


def _failure_of(error: McpCallError, call: ToolCall, timeout: float) -> ToolFailure:
    if error.category == "timeout":
        return ToolFailure("context_tool_timeout", {"timeout_seconds": timeout})
    if error.category == "mcp_error" and error.code == -32602 and _unknown_tool(error.message):
        return ToolFailure("context_tool_not_found", {"tool": call.name})
    return ToolFailure(
        "context_tool_error",
        {"category": error.category, "message": error.message[:_MESSAGE_CHARS]},
    )


def _result_of(result: Any, call: ToolCall) -> str | ToolFailure:
    text = _text_of(result)
    if result.is_error:
        if _unknown_tool(text):
            return ToolFailure("context_tool_not_found", {"tool": call.name})
        return ToolFailure("context_tool_error", {"message": text[:_MESSAGE_CHARS]})
    if not text:
        return ToolFailure("context_tool_empty", {"tool": call.name})
    return text


# --- on the pool's loop ----------------------------------------------------------------


def _ready(call: ToolCall, retry_for: float) -> concurrent.futures.Future:
    target = call.target
    assert target is not None

    async def ready(pool: SessionPool) -> McpSession:
        session, _ = await pool.ready(
            server_id=call.server_id, url=target.url, headers=target.headers, retry_for=retry_for
        )
        return session

    return pool_submit(ready)


def _send(call: ToolCall, session: McpSession, timeout: float) -> concurrent.futures.Future:
    target = call.target
    assert target is not None

    async def send(pool: SessionPool) -> str | ToolFailure:
        try:
            result = await pool.call(
                server_id=call.server_id,
                url=target.url,
                headers=target.headers,
                session=session,
                call=lambda s: s.call_tool(
                    name=call.name, arguments=dict(call.arguments), timeout=timeout
                ),
            )
        except McpCallError as error:
            return _failure_of(error, call, timeout)
        return _result_of(result, call)

    return pool_submit(send)


# --- the steps, from the caller's thread ---------------------------------------------


def _sessions_ready(
    calls: list[ToolCall], *, wait: float, retry_for: float, timeout: float
) -> tuple[dict[str, McpSession], dict[str, ToolFailure]]:
    """Each call's pooled session, or why there is none by the deadline."""
    pending = {call.hook_id: _ready(call, retry_for) for call in calls}
    concurrent.futures.wait(pending.values(), timeout=wait)
    sessions: dict[str, McpSession] = {}
    failures: dict[str, ToolFailure] = {}
    for call in calls:
        future = pending[call.hook_id]
        if not future.done():
            # Not cancelled: the session goes on opening for the next event.
            failures[call.hook_id] = (
                ToolFailure(LATE, {"waited_seconds": wait})
                if retry_for
                else ToolFailure("context_tool_timeout", {"timeout_seconds": timeout})
            )
            continue
        error = future.exception()
        if error is None:
            sessions[call.hook_id] = future.result()
        elif retry_for and isinstance(error, McpCallError) and error.category in _NOT_UP:
            failures[call.hook_id] = ToolFailure(LATE, {"waited_seconds": wait})
        elif isinstance(error, McpCallError):
            failures[call.hook_id] = _failure_of(error, call, timeout)
        else:
            failures[call.hook_id] = ToolFailure(
                "context_tool_error", {"message": str(error)[:_MESSAGE_CHARS]}
            )
    return sessions, failures


_NOT_UP = frozenset({"connection_refused", "http_5xx", "timeout"})


def _consent_refusals(calls: list[ToolCall]) -> dict[str, ToolFailure]:
    """``consent.enforce`` for each call whose session is open, right before
    it is sent (one statement each)."""
    refused: dict[str, ToolFailure] = {}
    for call in calls:
        verdict = outbound_check(
            user_id=call.user_id, server_id=call.server_id, scope=Scope.HOOKS, hook_id=call.hook_id
        )
        if not verdict.allowed:
            refused[call.hook_id] = ToolFailure(verdict.reason, {"message": verdict.message})
    return refused


def context_tools_call(
    calls: list[ToolCall], *, timeout: float, ready_wait: float = 0.0
) -> dict[str, ToolOutcome]:
    """Run every call (see the module docstring); whatever has not finished
    by the deadline is a ``context_tool_timeout``."""
    if not calls:
        return {}
    started = time.perf_counter()

    def elapsed_ms() -> int:
        return round((time.perf_counter() - started) * 1000)

    outcomes: dict[str, ToolOutcome] = {}
    unreachable = ToolFailure(
        "context_tool_unreachable", {"message": "the host reaches this server itself"}
    )
    for call in calls:
        if call.target is None:
            outcomes[call.hook_id] = ToolOutcome(unreachable, 0)
    reachable = [call for call in calls if call.target is not None]
    sessions, failures = _sessions_ready(
        reachable, wait=ready_wait or timeout, retry_for=ready_wait, timeout=timeout
    )
    ready = [call for call in reachable if call.hook_id in sessions]
    failures.update(_consent_refusals(ready))
    for hook_id, failure in failures.items():
        outcomes[hook_id] = ToolOutcome(failure, elapsed_ms())
    sent = {
        call.hook_id: _send(call, sessions[call.hook_id], timeout)
        for call in ready
        if call.hook_id not in failures
    }
    deadline = started + (ready_wait if ready_wait else 0) + timeout + _SLACK
    concurrent.futures.wait(sent.values(), timeout=max(deadline - time.perf_counter(), 0))
    for hook_id, future in sent.items():
        if future.done() and future.exception() is None:
            outcomes[hook_id] = ToolOutcome(future.result(), elapsed_ms())
        else:
            future.cancel()
            outcomes[hook_id] = ToolOutcome(
                ToolFailure("context_tool_timeout", {"timeout_seconds": timeout}), elapsed_ms()
            )
    return outcomes
