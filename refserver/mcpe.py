"""A second MCP server speaking MCPE, the "MCP Events Extension Proposal".

Mounted at `/mcpe/mcp` beside the main server. It behaves like the real MCPE
servers (`@mcpe/core` on the TypeScript SDK) as a client sees them:

- No capability is declared (neither `experimental` nor `extensions`): the
  server is recognised only by its six tools, `events_subscribe`,
  `events_unsubscribe`, `events_list`, `events_pause`, `events_resume` and
  `events_update`, whose input schemas are the proposal's. Results are text
  content holding JSON; a refused call is `isError: true`, never a JSON-RPC error.
- Only the `initialize` era is spoken: a POST without a session that is not
  `initialize` (the 2026 `server/discover` probe) gets HTTP 400, as from the
  TypeScript SDK, so a `mode="auto"` client falls back to the handshake.
- Subscriptions belong to the session that created them; `events_list` and
  the managing tools see only that session's. Events go out as standalone
  notifications (`events/event`, `events/batch`,
  `events/subscription_expired`), which over HTTP travel only on the session's
  GET stream; one that cannot be sent is recorded as dropped.
- Matching keeps the upstream quirks a client must defend against: a bare `*`
  event type matches nothing, and an event without `priority` never matches a
  priority filter.
- cron (`cronsim`, `zoneinfo`) and scheduled channels collect events and send
  one `events/batch` when they fire; a background ticker drives them and
  `expiresAt`. Handlers are stored and shown, never run.

The proposal's rules are `refserver.mcpe_rules`; the state is `McpeHub`
(`refserver.mcpe_hub`), which the control routes (`refserver.mcpe_control`)
drive; this module is the MCP server itself.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Mapping
from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from refserver.mcpe_hub import McpeHub
from refserver.mcpe_rules import SERVER_NAME, TOOL_DESCRIPTIONS, TOOL_SCHEMAS, Refused

logger = logging.getLogger(__name__)


def _session_id(ctx: ServerRequestContext[Any, Any]) -> str | None:
    headers = getattr(ctx.request, "headers", None)
    value = headers.get("mcp-session-id") if headers is not None else None
    return value or None


def _result(payload: Any, *, error: bool = False) -> CallToolResult:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=error)


def build_mcpe_server(hub: McpeHub) -> MCPServer[Any]:
    async def track(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        session = _session_id(ctx)
        if session is not None:
            hub.remember_session(session, ctx.session)
        if ctx.method == "tools/call":
            params = ctx.params if isinstance(ctx.params, Mapping) else {}
            hub.record_call(params.get("name"), params.get("arguments") or {}, session)
            # Recorded on arrival, answered after a delay set for the tool:
            # the call is in the server's hands meanwhile.
            await hub.held(params.get("name"))
        return await call_next(ctx)

    server: MCPServer[Any] = MCPServer(
        SERVER_NAME,
        instructions="MCP Events (MCPE): subscribe to events with the events_* tools.",
        version="1.0.0",
        middleware=[track],
        log_level="WARNING",
    )

    def tool(name: str, run: Any) -> None:
        # The SDK derives a schema from the signature; this one takes only the
        # context and reads the raw arguments, so that validation (and the
        # refusal text) is ours and `expiresAt: null` stays distinct from absent.
        async def call(ctx: Context) -> CallToolResult:
            request = ctx.request_context
            params = request.params if isinstance(request.params, Mapping) else {}
            arguments = params.get("arguments")
            arguments = dict(arguments) if isinstance(arguments, Mapping) else {}
            try:
                return _result(run(_session_id(request), arguments))
            except Refused as exc:
                return _result(str(exc), error=True)

        call.__name__ = name
        server.add_tool(
            call, name=name, description=TOOL_DESCRIPTIONS[name], structured_output=False
        )
        registered = server._tool_manager.get_tool(name)
        assert registered is not None
        registered.parameters = copy.deepcopy(TOOL_SCHEMAS[name])

    tool("events_subscribe", hub.subscribe)
    tool("events_unsubscribe", lambda s, a: hub.unsubscribe(s, a.get("subscriptionId")))
    tool("events_list", lambda s, a: hub.listing(s, a.get("status")))
    tool("events_pause", lambda s, a: hub.set_paused(s, a.get("subscriptionId"), True))
    tool("events_resume", lambda s, a: hub.set_paused(s, a.get("subscriptionId"), False))
    tool("events_update", hub.update)
    hub.server = server
    return server


class RefuseSessionless:
    """ASGI wrapper: like the TypeScript SDK, answer 400 to a POST that carries
    no session and is not `initialize` (so the 2026 `server/discover` probe
    fails and a `mode="auto"` client falls back to the handshake)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or any(k == b"mcp-session-id" for k, _ in scope.get("headers", []))
        ):
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        body = b""
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        try:
            payload = json.loads(body)
        except ValueError:
            payload = None
        if payload is not None and not (
            isinstance(payload, dict) and payload.get("method") == "initialize"
        ):
            error = {
                "jsonrpc": "2.0",
                "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"},
                "id": None,
            }
            raw = json.dumps(error).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 400,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(raw)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": raw})
            return

        async def replay() -> Message:
            if messages:
                return messages.pop(0)
            return await receive()

        await self.app(scope, replay, send)
