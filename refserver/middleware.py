"""SDK middleware: record, misbehave on request, and shape capabilities.

Middleware (not handlers) because these concerns cut across spec methods
the SDK owns: `initialize`/`server/discover` results are built by the SDK,
and `tools/list` cannot be re-bound by an extension. Order, outermost
first: record (so failed calls are still recorded), behaviour (injected
delay/failure), capabilities, visibility.
"""

from __future__ import annotations

import copy
from typing import Any

import anyio
from mcp import MCPError
from mcp.server import ServerRequestContext
from mcp.server.context import CallNext, HandlerResult

from refserver import dialect, requestinfo
from refserver.hooks import HOOKS_EXTENSION_ID, filter_declarations, supported_events
from refserver.state import State

EXTENSION_IDS = {
    "events": "io.modelcontextprotocol/events",
    "conversationEvents": "io.modelcontextprotocol/conversation-events",
    "hooks": HOOKS_EXTENSION_ID,
}
PRIVATE_TOOLS = {"private_repos"}
LEGACY_SESSION_LIMIT = 200
PRIVATE_RESOURCE_PREFIX = "refserver://private/"
GARBAGE: dict[str, Any] = {
    "context": 12345,
    "structuredContext": "not-an-object",
    "events": "nope",
    "tools": {"not": "a list"},
}


def build_middleware(state: State) -> list[Any]:
    async def record(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        era = requestinfo.era(ctx)
        entry: dict[str, Any] = {
            "method": ctx.method,
            "requestId": ctx.request_id,
            "era": era,
            "principal": requestinfo.principal(ctx),
            "meta": requestinfo.raw_meta(ctx),
            # W3C trace context on the HTTP request (the client's tracing).
            "traceparent": requestinfo.header(ctx, "traceparent"),
            "sessionId": requestinfo.header(ctx, "mcp-session-id"),
        }
        if ctx.request_id is None:
            entry["notification"] = True
        state.record("requests", entry)
        session_id = requestinfo.header(ctx, "mcp-session-id")
        if era == "legacy" and session_id:
            state.legacy_sessions.pop(session_id, None)
            state.legacy_sessions[session_id] = ctx.session
            while len(state.legacy_sessions) > LEGACY_SESSION_LIMIT:
                del state.legacy_sessions[next(iter(state.legacy_sessions))]
        common = {
            "era": era,
            "principal": entry["principal"],
            "meta": entry["meta"],
            "threadId": requestinfo.thread_id(ctx),
        }
        if ctx.method == "tools/list":
            state.record("toolsList", common)
        elif ctx.method == "resources/list":
            state.record("resourcesList", common)
        elif ctx.method == "tools/call":
            params = ctx.params or {}
            arguments = params.get("arguments") or {}
            state.record(
                "toolCalls",
                {
                    **common,
                    "name": params.get("name"),
                    "arguments": arguments,
                    "threadId": requestinfo.thread_id(
                        ctx, arguments if isinstance(arguments, dict) else None
                    ),
                },
            )
        return await call_next(ctx)

    async def behaviour(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        rule = state.behaviours.get(ctx.method)
        if rule is None or ctx.request_id is None:
            return await call_next(ctx)
        if rule.delay_ms:
            await anyio.sleep(rule.delay_ms / 1000)
        if rule.fail and (rule.times is None or rule.times > 0):
            if rule.times is not None:
                rule.times -= 1
            if rule.fail == "hang":
                await anyio.sleep_forever()
            if rule.fail == "garbage":
                return copy.deepcopy(GARBAGE)
            if rule.fail == "input_required":
                # 2026-07-28: the server needs input before it can complete.
                return {"resultType": "input_required", "inputRequests": {}}
            if rule.error is not None:
                err = dialect.error_object(state.config.dialect, rule.error)
                raise MCPError(
                    code=int(err.get("code", -32603)),
                    message=str(err.get("message", "Injected failure")),
                    data=err.get("data"),
                )
            raise MCPError(code=-32603, message="Injected failure", data={"method": ctx.method})
        return await call_next(ctx)

    async def capabilities(
        ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method not in ("initialize", "server/discover") or not isinstance(result, dict):
            return result
        client_caps = requestinfo.client_capabilities(ctx)
        supported = supported_events(client_caps)
        state.record(
            "capabilityReads",
            {
                "method": ctx.method,
                "era": requestinfo.era(ctx),
                "clientCapabilities": client_caps,
                "supportedEvents": supported,
            },
        )
        shape_capabilities(state, result, ctx.method, supported)
        return result

    async def visibility(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method not in ("tools/list", "resources/list") or not isinstance(result, dict):
            return result
        if private_visible(state, requestinfo.thread_id(ctx)):
            return result
        if isinstance(result.get("tools"), list):
            result["tools"] = [t for t in result["tools"] if t.get("name") not in PRIVATE_TOOLS]
        if isinstance(result.get("resources"), list):
            result["resources"] = [
                r
                for r in result["resources"]
                if not str(r.get("uri", "")).startswith(PRIVATE_RESOURCE_PREFIX)
            ]
        return result

    async def speak_dialect(
        ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """events/* in the configured dialect (refserver/dialect.py): renumber
        typed errors, tag results with resultType, drop what a dialect lacks."""
        spoken = state.config.dialect
        if not ctx.method.startswith("events/") or spoken == dialect.SKETCH:
            return await call_next(ctx)
        try:
            result = await call_next(ctx)
        except MCPError as exc:
            data = exc.error.data if isinstance(exc.error.data, dict) else {}
            if spoken == dialect.CHATGPT and exc.error.code == -32011:
                if ctx.method == "events/unsubscribe":
                    return {}  # an unknown subscription: nothing to remove
                if data.get("kind") == "event":
                    raise MCPError(code=-32602, message="Unknown event name") from None
            renumbered = dialect.code(spoken, exc.error.code)
            if renumbered != exc.error.code:
                raise MCPError(
                    code=renumbered, message=exc.error.message, data=exc.error.data
                ) from None
            raise
        if isinstance(result, dict):
            if spoken == dialect.SEP:
                result.setdefault("resultType", "complete")
            if spoken == dialect.CHATGPT:
                result.pop("deliveryStatus", None)
        return result

    return [record, behaviour, speak_dialect, capabilities, visibility]


def private_visible(state: State, thread: str | None) -> bool:
    """After `login`, private items show for that thread (or for any caller that names none)."""
    if thread is not None:
        return thread in state.logged_in_threads
    return state.logged_in_any


def feature_values(state: State, supported: list[str] | None) -> dict[str, dict[str, Any]]:
    declarations = state.capabilities.declarations
    if state.config.filter_hooks_by_supported_events:
        declarations = filter_declarations(declarations, supported)
    else:
        declarations = copy.deepcopy(declarations)
    return {
        "events": copy.deepcopy(state.capabilities.events),
        "conversationEvents": copy.deepcopy(state.capabilities.conversation_events),
        "hooks": {"declarations": declarations},
    }


def shape_capabilities(
    state: State, result: dict[str, Any], method: str, supported: list[str] | None
) -> None:
    """Put each feature in each enabled location; remove it from disabled ones.

    `extensions` exists only on the 2026 wire (the SDK strips it for legacy
    clients), so it is only written into `server/discover` results. The
    top-level fields are written into both eras' raw results; the SDK client
    drops them, but a raw reader sees them.
    """
    caps = result.setdefault("capabilities", {})
    values = feature_values(state, supported)
    for feature, value in values.items():
        where = state.capabilities.locations.get(feature, [])
        ext_id = EXTENSION_IDS[feature]
        extensions = caps.get("extensions")
        if "extensions" in where and method == "server/discover":
            caps.setdefault("extensions", {})[ext_id] = copy.deepcopy(value)
        elif isinstance(extensions, dict):
            extensions.pop(ext_id, None)
        experimental = caps.get("experimental")
        if "experimental" in where:
            caps.setdefault("experimental", {})[feature] = copy.deepcopy(value)
        elif isinstance(experimental, dict):
            experimental.pop(feature, None)
        if "toplevel" in where:
            caps[feature] = copy.deepcopy(value)
        else:
            caps.pop(feature, None)
    for key in ("extensions", "experimental"):
        if caps.get(key) == {}:
            del caps[key]
