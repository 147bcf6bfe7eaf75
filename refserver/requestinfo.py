"""What a request tells us about its sender: principal, thread, capabilities.

The SDK hands every handler and middleware a `ServerRequestContext` whose
`request` is the Starlette request that carried the JSON-RPC message (both
protocol eras over Streamable HTTP), so HTTP headers are read from there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.server import ServerRequestContext
from mcp_types import CLIENT_CAPABILITIES_META_KEY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

ANONYMOUS = "anonymous"

# Where a client may put the thread id on tools/list, resources/list and
# tools/call `_meta` (the thread-scoped refresh leaves the key open).
THREAD_META_KEYS = (
    "threadId",
    "thread_id",
    "io.modelcontextprotocol/threadId",
    "refreshThreadCapabilities",
)


def header(ctx: ServerRequestContext[Any, Any], name: str) -> str | None:
    request = ctx.request
    headers = getattr(request, "headers", None)
    if headers is None:
        return None
    value = headers.get(name)
    return value if value else None


def principal(ctx: ServerRequestContext[Any, Any]) -> str:
    """The caller's identity: the exact Authorization header value, else 'anonymous'.

    A test server has no user database; a distinct header value is a distinct
    principal, which is all the subscription key needs.
    """
    return header(ctx, "authorization") or ANONYMOUS


def is_authenticated(ctx: ServerRequestContext[Any, Any]) -> bool:
    return header(ctx, "authorization") is not None


def raw_meta(ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
    params = ctx.params if isinstance(ctx.params, Mapping) else {}
    meta = params.get("_meta")
    return dict(meta) if isinstance(meta, Mapping) else {}


def thread_id(
    ctx: ServerRequestContext[Any, Any], arguments: Mapping[str, Any] | None = None
) -> str | None:
    if arguments:
        for key in ("thread_id", "threadId"):
            value = arguments.get(key)
            if isinstance(value, str) and value:
                return value
    meta = raw_meta(ctx)
    for key in THREAD_META_KEYS:
        value = meta.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def era(ctx: ServerRequestContext[Any, Any]) -> str:
    if ctx.method == "initialize":
        return "legacy"
    if ctx.method == "server/discover" or CLIENT_CAPABILITIES_META_KEY in raw_meta(ctx):
        return "modern"
    return "modern" if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS else "legacy"


def client_capabilities(ctx: ServerRequestContext[Any, Any]) -> dict[str, Any] | None:
    """The client's capabilities as it sent them (raw, so unknown fields survive).

    Legacy: `initialize` params (the handshake has not committed yet when our
    middleware runs) or the committed handshake afterwards. Modern: the
    per-request `_meta` envelope.
    """
    params = ctx.params if isinstance(ctx.params, Mapping) else {}
    if ctx.method == "initialize":
        caps = params.get("capabilities")
        return dict(caps) if isinstance(caps, Mapping) else None
    meta_caps = raw_meta(ctx).get(CLIENT_CAPABILITIES_META_KEY)
    if isinstance(meta_caps, Mapping):
        return dict(meta_caps)
    declared = ctx.session.client_capabilities
    if declared is None:
        return None
    return declared.model_dump(by_alias=True, mode="json", exclude_none=True)
