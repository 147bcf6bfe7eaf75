"""The HTTP client under the MCP SDK: pinned, credentialed, observed.

``streamable_http_client(url, http_client=...)`` lets us supply the
``httpx2.AsyncClient``. Ours:

- connects only to the addresses ``netguard`` vetted (pinned transport);
- carries the caller's headers on every request (POST, the legacy GET
  stream, the closing DELETE) and ignores proxy environment variables, which
  would otherwise route around the pin;
- never follows redirects itself (the SDK follows same-origin ones only);
- reports each response status / transport exception to the current call's
  ``CallProbe`` so errors can be classified (see ``errors.py``);
- notes the ``Mcp-Session-Id`` the server gave the connection
  (``SessionNote``), for the spans' ``mcp.session.id``.
"""

from __future__ import annotations

import contextvars
import json
from dataclasses import dataclass

import httpx2

from switchboard import telemetry
from switchboard.mcp.errors import CallProbe
from switchboard.mcp.netguard import CheckedTarget, httpx2_async_transport

__all__ = ["CURRENT_PROBE", "HttpTimeouts", "SessionNote", "build_http_client"]

CURRENT_PROBE: contextvars.ContextVar[CallProbe | None] = contextvars.ContextVar(
    "switchboard_mcp_probe", default=None
)


@dataclass
class SessionNote:
    """The session id the server assigned (Streamable HTTP's
    ``Mcp-Session-Id``; none in the 2026 era, which has no sessions)."""

    id: str | None = None


class _ProbingTransport(httpx2.AsyncBaseTransport):
    def __init__(self, inner: httpx2.AsyncBaseTransport, note: SessionNote | None = None) -> None:
        self._inner = inner
        self._note = note

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        # The call's trace context rides on every HTTP request to the server.
        telemetry.inject_headers(request.headers)
        probe = CURRENT_PROBE.get()
        if probe is not None and request.method == "POST":
            probe.http_status = None
            probe.transport_error = None
            # A notification sent in the call's context (the cancellation of
            # a held stream) has no id: the request's stays.
            request_id = _jsonrpc_id(request)
            if request_id is not None:
                probe.request_id = request_id
        try:
            response = await self._inner.handle_async_request(request)
        except Exception as exc:
            if probe is not None:
                probe.transport_error = exc
            raise
        if probe is not None and request.method == "POST":
            probe.http_status = response.status_code
        if self._note is not None:
            session_id = response.headers.get("mcp-session-id")
            if session_id:
                self._note.id = session_id
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def _jsonrpc_id(request: httpx2.Request) -> object:
    """The JSON-RPC id of the message in this POST (the SDK sends a JSON body)."""
    try:
        body = json.loads(request.content)
    except (ValueError, httpx2.RequestNotRead):
        return None
    return body.get("id") if isinstance(body, dict) else None


@dataclass(frozen=True)
class HttpTimeouts:
    """HTTP-level timeouts (s). Calls have their own, shorter MCP deadlines;
    ``read`` only bounds silence on a response stream (``events/stream``)."""

    connect: float
    read: float
    write: float


def build_http_client(
    target: CheckedTarget,
    *,
    headers: dict[str, str],
    timeouts: HttpTimeouts,
    max_connections: int = 20,
    note: SessionNote | None = None,
) -> httpx2.AsyncClient:
    limits = httpx2.Limits(
        max_connections=max_connections, max_keepalive_connections=min(max_connections, 10)
    )
    return httpx2.AsyncClient(
        transport=_ProbingTransport(httpx2_async_transport(target, limits=limits), note),
        headers=headers,
        timeout=httpx2.Timeout(
            connect=timeouts.connect,
            read=timeouts.read,
            write=timeouts.write,
            pool=timeouts.connect,
        ),
        follow_redirects=False,
        trust_env=False,
    )
