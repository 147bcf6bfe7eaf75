"""One exception type for every MCP failure, and the classifier that builds it.

Callers (sync jobs, the conversation fan-out, the API) only ever need to
answer "what kind of failure was it?" to decide on retry, backoff, status
and what to store in ``last_error``. So every failure leaving this package is
an ``McpCallError`` whose ``category`` is one of:

==================== =========================================================
``timeout``          connect/initialize deadline, per-call timeout (the SDK's
                     ``MCPError`` -32001), or an HTTP-level read/connect timeout
``connection_refused`` nothing accepted the connection, it dropped, or the
                     name did not resolve
``tls_error``        the TLS handshake or certificate verification failed
``http_4xx``         the server answered HTTP 4xx (``http_status`` set; when
``http_5xx``         the body was a JSON-RPC error, ``code``/``data`` too)
``protocol``         the server answered, but not with valid MCP: unparsable
                     body, unexpected content type, a result that does not
                     match the expected shape, no common protocol version
``mcp_error``        the server answered with a JSON-RPC error; ``code``,
                     ``message`` and ``data`` are the server's (e.g. -32011)
``blocked_target``   the outbound guard refused the URL (``netguard``)
==================== =========================================================

The first six names match the webhook ``deliveryStatus.lastError`` vocabulary
of the events spec, so a category can be stored as-is.

The SDK hides some of this: it turns HTTP error statuses into synthetic
JSON-RPC errors (-32603 "Server returned an error response", -32601
"Not Found") and transport failures into -32000 "Connection closed" or an
anyio ``ExceptionGroup``. ``CallProbe`` (filled by our HTTP transport, see
``transport.py``) records the real status or transport exception of the
request so the classifier can tell a server's own -32601 from a 404.

Messages never contain header values or URL userinfo/query strings.
"""

from __future__ import annotations

import asyncio
import re
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import httpx2
import pydantic
from mcp import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

from switchboard.mcp.netguard import BlockedTarget

__all__ = ["CATEGORIES", "CallProbe", "Category", "McpCallError", "classify"]

Category = Literal[
    "timeout",
    "connection_refused",
    "tls_error",
    "http_4xx",
    "http_5xx",
    "protocol",
    "mcp_error",
    "blocked_target",
]
CATEGORIES: tuple[Category, ...] = (
    "timeout",
    "connection_refused",
    "tls_error",
    "http_4xx",
    "http_5xx",
    "protocol",
    "mcp_error",
    "blocked_target",
)

# Errors the SDK makes up itself (streamable_http.py / jsonrpc_dispatcher.py)
# rather than relaying from the server. Matched on code + message.
_SYNTHETIC_HTTP = {
    (-32603, "Server returned an error response"),
    (-32601, "Not Found"),
    (-32600, "Session terminated"),
}
_SYNTHETIC_PROTOCOL = re.compile(
    r"^(Failed to parse (JSON response|SSE message)|Unexpected content type|"
    r"server answered a request with 202|SSE stream failed|.*redirect)",
    re.IGNORECASE,
)
_TIMED_OUT = re.compile(r"timed out", re.IGNORECASE)


@dataclass
class CallProbe:
    """What the HTTP layer saw for the request(s) of one call.

    Set in a ContextVar around each call; the SDK runs each POST in a task
    started from the caller's context copy, so our transport sees the same
    object and fills it in.
    """

    method: str | None = None
    request_id: Any = None
    http_status: int | None = None
    transport_error: BaseException | None = None


class McpCallError(Exception):
    """Any failure talking to an MCP server. See the module docstring.

    ``code``/``data`` are set for JSON-RPC errors (``mcp_error``, and
    ``http_4xx``/``http_5xx`` whose body was one). ``method`` is the MCP
    method being called (``"connect"`` for the handshake). ``server`` is the
    redacted URL. ``retryable`` is a hint: transient transport problems and
    5xx are worth retrying with backoff, the rest not unchanged.
    """

    def __init__(
        self,
        category: Category,
        message: str,
        *,
        code: int | None = None,
        data: Any = None,
        http_status: int | None = None,
        method: str | None = None,
        server: str | None = None,
    ) -> None:
        super().__init__(message)
        self.category: Category = category
        self.message = message
        self.code = code
        self.data = data
        self.http_status = http_status
        self.method = method
        self.server = server

    @property
    def retryable(self) -> bool:
        return self.category in ("timeout", "connection_refused", "http_5xx")

    def __str__(self) -> str:
        where = f" [{self.method}]" if self.method else ""
        code = f" (code {self.code})" if self.code is not None else ""
        status = f" (HTTP {self.http_status})" if self.http_status is not None else ""
        return f"{self.category}{where}: {self.message}{code}{status}"

    def __repr__(self) -> str:
        return (
            f"McpCallError(category={self.category!r}, message={self.message!r}, "
            f"code={self.code!r}, http_status={self.http_status!r}, method={self.method!r}, "
            f"server={self.server!r})"
        )

    def __reduce__(self) -> tuple[Any, ...]:  # picklable for Celery results
        return (
            _rebuild,
            (
                self.category,
                self.message,
                self.code,
                self.data,
                self.http_status,
                self.method,
                self.server,
            ),
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe summary for storage (``last_error_detail``) or API bodies."""
        return {
            "category": self.category,
            "message": self.message,
            "code": self.code,
            "data": self.data,
            "http_status": self.http_status,
            "method": self.method,
        }


def _rebuild(
    category: Category,
    message: str,
    code: int | None,
    data: Any,
    http_status: int | None,
    method: str | None,
    server: str | None,
) -> McpCallError:
    return McpCallError(
        category,
        message,
        code=code,
        data=data,
        http_status=http_status,
        method=method,
        server=server,
    )


def is_cancellation(exc: BaseException) -> bool:
    """Whether ``exc`` is the event loop's cancellation (usable outside a loop too)."""
    if isinstance(exc, asyncio.CancelledError):
        return True
    try:
        return isinstance(exc, anyio.get_cancelled_exc_class())
    except Exception:  # no running loop: only asyncio's class is relevant
        return False


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    else:
        yield exc


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _rank(exc: BaseException) -> int:
    """Which leaf of an ExceptionGroup explains the failure best (lower wins)."""
    if isinstance(exc, McpCallError | BlockedTarget):
        return 0
    if isinstance(exc, httpx2.TransportError | OSError | ssl.SSLError):
        return 1
    if isinstance(exc, MCPError):
        return 2
    if isinstance(exc, TimeoutError):
        return 3
    if is_cancellation(exc):
        return 9
    return 5


def primary(exc: BaseException) -> BaseException:
    """The single most telling exception inside a (possibly nested) group."""
    leaves = list(_leaves(exc))
    return min(leaves, key=_rank) if leaves else exc


def _status_category(status: int) -> Category:
    return "http_5xx" if status >= 500 else "http_4xx"


def _transport_error(
    exc: BaseException, *, method: str | None, server: str | None
) -> McpCallError | None:
    if any(isinstance(e, ssl.SSLError) for e in _chain(exc)):
        return McpCallError(
            "tls_error", "TLS handshake or certificate check failed.", method=method, server=server
        )
    if isinstance(exc, httpx2.TimeoutException | TimeoutError):
        return McpCallError(
            "timeout", "The server did not answer in time.", method=method, server=server
        )
    if isinstance(exc, httpx2.NetworkError | OSError):
        return McpCallError(
            "connection_refused",
            "Could not connect to the server, or the connection dropped.",
            method=method,
            server=server,
        )
    if isinstance(exc, httpx2.TransportError):
        return McpCallError(
            "protocol",
            f"HTTP exchange failed: {type(exc).__name__}.",
            method=method,
            server=server,
        )
    return None


def classify(
    exc: BaseException,
    *,
    probe: CallProbe | None = None,
    method: str | None = None,
    server: str | None = None,
) -> McpCallError:
    """Map any exception (or group) raised by the SDK or transport to McpCallError."""
    leaf = primary(exc)
    if isinstance(leaf, McpCallError):
        return leaf
    if isinstance(leaf, BlockedTarget):
        return McpCallError("blocked_target", leaf.message, method=method, server=server)
    # A transport failure recorded by our transport is the truth even when the
    # SDK only surfaced "Connection closed" or a cancellation.
    recorded = probe.transport_error if probe else None
    if isinstance(leaf, MCPError):
        code, message, data = leaf.code, leaf.message, leaf.data
        status = probe.http_status if probe else None
        if status is not None and status >= 400:
            synthetic = (code, message) in _SYNTHETIC_HTTP
            return McpCallError(
                _status_category(status),
                f"The server answered HTTP {status}."
                if synthetic
                else f"The server answered HTTP {status}: {message}",
                code=None if synthetic else code,
                data=None if synthetic else data,
                http_status=status,
                method=method,
                server=server,
            )
        if code == REQUEST_TIMEOUT and _TIMED_OUT.search(message):
            return McpCallError(
                "timeout", "The server did not answer in time.", method=method, server=server
            )
        if code == CONNECTION_CLOSED and message == "Connection closed":
            mapped = _transport_error(recorded, method=method, server=server) if recorded else None
            return mapped or McpCallError(
                "connection_refused",
                "The connection to the server closed.",
                method=method,
                server=server,
            )
        if _SYNTHETIC_PROTOCOL.match(message):
            return McpCallError("protocol", message[:300], code=code, method=method, server=server)
        return McpCallError(
            "mcp_error", message[:1000], code=code, data=data, method=method, server=server
        )
    mapped = _transport_error(leaf, method=method, server=server)
    if mapped is not None:
        return mapped
    if is_cancellation(leaf) and recorded is not None:
        mapped = _transport_error(recorded, method=method, server=server)
        if mapped is not None:
            return mapped
    if isinstance(leaf, pydantic.ValidationError):
        errors = leaf.errors()
        fields = sorted({".".join(str(p) for p in err["loc"]) or "$" for err in errors})
        reasons = [err["msg"] for err in errors if err.get("type") == "value_error"]
        return McpCallError(
            "protocol",
            ("The server's answer does not have the expected shape: " + ", ".join(fields[:10]))
            + (f" ({reasons[0][:200]})" if reasons else ""),
            method=method,
            server=server,
        )
    # RuntimeError("No mutually supported modern protocol version ..."),
    # RuntimeError("Unsupported protocol version from the server ...") and
    # anything else unexpected: the server did not speak MCP as we know it.
    return McpCallError(
        "protocol", f"{type(leaf).__name__}: {str(leaf)[:300]}", method=method, server=server
    )
