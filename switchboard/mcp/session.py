"""``McpSession``: one short-lived MCP connection, for async code.

    async with McpSession(McpTarget(url=..., headers=...)) as s:
        reply = await s.user_message(message_id="m1", content="hi")

Design notes (the why):

- Built on the SDK ``Client`` over Streamable HTTP. ``mode="auto"`` probes
  ``server/discover`` (2026-07-28) and falls back to ``initialize``
  (2025-11-25); ``McpTarget.mode="legacy"`` forces the handshake.
- A session is for one unit of work (a request, a task run) and is never
  shared across tasks or threads: the SDK's session is bound to the task
  group and event loop it was entered on.
- Connect is bounded by one deadline (``connect_timeout``) covering DNS,
  TCP, TLS and the discover/initialize round trips, so a server that
  accepts TCP and never answers cannot hang the caller. Each call has its
  own deadline (``call_timeout`` or ``timeout=``); closing is bounded too.
- Every failure surfaces as ``McpCallError`` (``errors.py``). When the
  transport dies mid-session the SDK cancels the pending call and raises an
  ExceptionGroup when the ``async with`` exits; ``__aexit__`` maps that.
- Outbound addresses go through ``netguard`` and the connection is pinned
  to the vetted IPs. Headers are sent on every HTTP request and never appear
  in reprs, messages or logs.
"""

from __future__ import annotations

import copy
import itertools
import logging
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any, Literal, TypeVar

import anyio
import mcp_types as types
from mcp import Client
from mcp.client import ClientExtension, NotificationBinding, advertise
from mcp.client import session as _sdk_client_session
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from switchboard import metrics, telemetry
from switchboard.mcp import logredact, wire
from switchboard.mcp.capabilities import (
    CLIENT_EXPERIMENTAL,
    EVENTS_EXTENSION_ID,
    HOOKS_EXTENSION_ID,
    ServerCapabilities,
    hooks_client_settings,
    missing_features,
    resolve,
)
from switchboard.mcp.errors import CallProbe, McpCallError, classify, primary
from switchboard.mcp.mcpe import McpeClientExtension, McpeHandler
from switchboard.mcp.netguard import BlockedTarget, acheck_url
from switchboard.mcp.session_calls import FeatureCalls
from switchboard.mcp.session_events import (
    _STREAM_METHODS,
    EventCalls,
    _has_failure,
)
from switchboard.mcp.streams import EventStream
from switchboard.mcp.target import UNSET, McpTarget, Unset
from switchboard.mcp.transport import CURRENT_PROBE, HttpTimeouts, SessionNote, build_http_client

__all__ = ["UNSET", "McpSession", "McpTarget", "Unset"]

logger = logging.getLogger(__name__)
logredact.install()

T = TypeVar("T", bound=BaseModel)

CLIENT_NAME = "switchboard"
CLIENT_VERSION = "0.1.0"
# Extra wall-clock allowed beyond an SDK request timeout before our own backstop
# fires (the SDK's timeout gives the better error and sends a courtesy cancel).
_BACKSTOP = 1.0
# Silence tolerated on a response stream before httpx gives up (SDK default 300 s).
STREAM_READ_TIMEOUT = 300.0


# The SDK queues each bound notification method's frames (256) and *drops the
# oldest* when full. One session may carry hundreds of push streams; on a
# saturated machine its consumer falls behind for a moment and an event
# would be lost while the next one's cursor moves past it. Our handler only
# routes each frame into its stream's own buffer, so a deeper queue costs
# memory briefly, never correctness. Private SDK seam, read when a session
# opens; tests/mcp/test_session_streams.py checks it still exists.
_sdk_client_session._NOTIFICATION_QUEUE_SIZE = 100_000  # type: ignore[misc]


class _SwitchboardClient(Client):
    """``Client`` that also advertises ``experimental`` client capabilities.

    The SDK only advertises extensions (``ClientSession._build_capabilities``
    hard-codes ``experimental=None``), but SEP-2282 servers that predate
    extensions read ``experimental.hooks.supported_events``. This wraps the
    session's capability builder, so both eras (initialize params and the
    2026 per-request ``_meta``) carry it. Private SDK seam: covered by a test
    that reads what the reference server received.
    """

    async def _build_session(self, exit_stack: AsyncExitStack) -> Any:
        session = await super()._build_session(exit_stack)
        build = session._build_capabilities

        def with_experimental(version: str) -> types.ClientCapabilities:
            caps = build(version)
            merged = {**(caps.experimental or {}), **copy.deepcopy(CLIENT_EXPERIMENTAL)}
            return caps.model_copy(update={"experimental": merged})

        # The SDK has no hook for experimental client capabilities; wrap its builder.
        session._build_capabilities = with_experimental  # type: ignore[method-assign]
        return session


class _EventsClientExtension(ClientExtension):
    """Receives ``notifications/events/*`` (only bindings see custom notifications)."""

    identifier = EVENTS_EXTENSION_ID

    def __init__(self, deliver: Callable[[str, wire.EventsNotificationParams], Awaitable[None]]):
        self._deliver = deliver

    def notifications(self) -> Sequence[NotificationBinding[Any]]:
        def handler(kind: str) -> Callable[[wire.EventsNotificationParams], Awaitable[None]]:
            async def on_notification(params: wire.EventsNotificationParams) -> None:
                await self._deliver(kind, params)

            return on_notification

        return [
            NotificationBinding(
                method=f"notifications/events/{kind}",
                params_type=wire.EventsNotificationParams,
                handler=handler(kind),
            )
            for kind in _STREAM_METHODS
        ]


class McpSession(EventCalls, FeatureCalls):
    """An open MCP connection. Use as ``async with McpSession(target) as s``."""

    def __init__(self, target: McpTarget, /, *, on_mcpe: McpeHandler | None = None) -> None:
        """``on_mcpe``: receive MCPE's ``events/*`` notifications (``mcpe``);
        such a session should use ``mode="legacy"`` (they travel on its GET
        stream)."""
        self.target = target
        self._on_mcpe = on_mcpe
        self._client: Client | None = None
        self._closed = False
        self._stack: AsyncExitStack | None = None
        self._scope: anyio.CancelScope | None = None
        self._capabilities: ServerCapabilities | None = None
        self._streams: dict[int, EventStream] = {}
        self._stream_routes: dict[str, EventStream] = {}
        self._stream_keys = itertools.count(1)
        self._call_timeout = target.resolved_call_timeout()
        self._connect_timeout = target.resolved_connect_timeout()
        self._session = SessionNote()

    def __repr__(self) -> str:
        state = "open" if self._client is not None else "closed"
        return f"<McpSession {self.target.safe_url} {state}>"

    # --- lifecycle -----------------------------------------------------------------

    async def __aenter__(self) -> McpSession:
        if self._scope is not None:
            raise RuntimeError("McpSession is already open; create one per unit of work")
        server = self.target.safe_url
        # One deadline over the whole connect. The scope stays entered until
        # __aexit__ (like a task group's), because the SDK's task groups are
        # opened inside it; after connecting its deadline is lifted.
        scope = anyio.CancelScope(deadline=anyio.current_time() + self._connect_timeout)
        scope.__enter__()
        self._scope = scope
        probe = CallProbe(method="connect")
        token = CURRENT_PROBE.set(probe)
        stack = AsyncExitStack()
        # Opening the session is the handshake's span (``initialize``, renamed
        # ``server/discover`` when the 2026 handshake answered).
        with telemetry.mcp_client_span("initialize", url=self.target.url) as span:
            try:
                client = await self._connect(stack, scope, probe, token, server)
            except McpCallError as failure:
                telemetry.span_failed(span, failure.category, failure.message)
                raise
            telemetry.span_note(
                span,
                {
                    "mcp.protocol.version": client.protocol_version,
                    "mcp.session.id": self._session.id,
                },
                name=(
                    "server/discover"
                    if client.protocol_version in MODERN_PROTOCOL_VERSIONS
                    else "initialize"
                ),
            )
        CURRENT_PROBE.reset(token)
        scope.deadline = math.inf
        self._client = client
        self._stack = stack
        return self

    async def _connect(
        self,
        stack: AsyncExitStack,
        scope: anyio.CancelScope,
        probe: CallProbe,
        token: Any,
        server: str,
    ) -> Client:
        """Connect (the vetted address, the HTTP client, the SDK's handshake);
        any failure closes what was opened and raises ``McpCallError``."""
        try:
            try:
                checked = await acheck_url(self.target.url)
            except BlockedTarget as exc:
                raise McpCallError(
                    "blocked_target", exc.message, method="connect", server=server
                ) from None
            http = build_http_client(
                checked,
                headers=dict(self.target.headers),
                timeouts=HttpTimeouts(
                    connect=self._connect_timeout,
                    read=max(STREAM_READ_TIMEOUT, self._call_timeout),
                    write=self._call_timeout,
                ),
                max_connections=self.target.max_connections,
                note=self._session,
            )
            await stack.enter_async_context(http)
            client = _SwitchboardClient(
                streamable_http_client(self.target.url, http_client=http),
                mode=self.target.mode,
                cache=None,  # list calls must always reach the server (thread refresh)
                read_timeout_seconds=self._call_timeout,
                client_info=types.Implementation(name=CLIENT_NAME, version=CLIENT_VERSION),
                message_handler=self._on_message,
                extensions=[
                    _EventsClientExtension(self._on_stream_notification),
                    advertise(HOOKS_EXTENSION_ID, hooks_client_settings()),
                    *([McpeClientExtension(self._on_mcpe)] if self._on_mcpe else []),
                ],
            )
            await stack.enter_async_context(client)
        except BaseException as exc:
            CURRENT_PROBE.reset(token)
            await self._abort_connect(stack, scope, exc, probe, server)
            raise AssertionError("unreachable") from None  # _abort_connect always raises
        return client

    async def _abort_connect(
        self,
        stack: AsyncExitStack,
        scope: anyio.CancelScope,
        exc: BaseException,
        probe: CallProbe,
        server: str,
    ) -> None:
        with anyio.CancelScope(shield=True):
            try:
                await stack.aclose()
            except BaseException:  # cleanup after a failed connect: the first error wins
                logger.debug("cleanup after failed MCP connect raised", exc_info=True)
        self._scope = None
        swallowed = scope.__exit__(type(exc), exc, exc.__traceback__)
        # Past the deadline, whatever surfaced (a cancellation, or an SDK error
        # the cancellation turned into) is explained by the deadline.
        if swallowed or scope.cancelled_caught or scope.cancel_called:
            raise McpCallError(
                "timeout",
                f"Connecting did not finish within {self._connect_timeout:g}s.",
                method="connect",
                server=server,
            ) from None
        if isinstance(exc, anyio.get_cancelled_exc_class()) and not _has_failure(exc):
            raise exc  # the caller was cancelled: let it propagate untouched
        raise classify(exc, probe=probe, method="connect", server=server) from primary(exc)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:  # never swallows: the body's exception always propagates
        stack, scope = self._stack, self._scope
        self._closed = self._client is not None
        self._client = None
        self._stack = None
        self._scope = None
        if stack is None or scope is None:
            return False
        # Closing (session DELETE, stream teardown) gets its own short deadline.
        scope.deadline = anyio.current_time() + self._connect_timeout
        close_error: BaseException | None = None
        try:
            await stack.__aexit__(exc_type, exc, tb)
        except BaseException as raised:
            close_error = raised
        scope_swallowed = scope.__exit__(
            type(close_error) if close_error else None,
            close_error,
            close_error.__traceback__ if close_error else None,
        )
        if close_error is None or scope_swallowed:
            return False  # the body's own exception (if any) propagates
        if isinstance(exc, McpCallError):
            return False  # already explained; cleanup noise is secondary
        if exc is not None and not isinstance(exc, anyio.get_cancelled_exc_class()):
            return False  # the caller's own error wins
        if exc is None:
            # Every call in the body succeeded; a failure while hanging up does
            # not make their results wrong.
            logger.debug("closing the MCP session failed", exc_info=close_error)
            return False
        if isinstance(close_error, anyio.get_cancelled_exc_class()) and not _has_failure(
            close_error
        ):
            raise close_error
        if not _has_failure(close_error):
            return False
        # The transport died under a call: the SDK cancelled the body and raised
        # the real failure here.
        raise classify(close_error, method="session", server=self.target.safe_url) from primary(
            close_error
        )

    # --- plumbing ----------------------------------------------------------------------

    @property
    def client(self) -> Client:
        if self._client is None:
            if self._closed:
                # Another task shared it and it closed (the connection died):
                # a lost connection to the caller, who reconnects.
                raise McpCallError(
                    "connection_refused", "The MCP session closed.", server=self.target.safe_url
                )
            raise RuntimeError("McpSession is not open; use `async with McpSession(...)`")
        return self._client

    @property
    def protocol_version(self) -> str:
        return self.client.protocol_version

    @property
    def is_legacy(self) -> bool:
        return self.protocol_version not in MODERN_PROTOCOL_VERSIONS

    @property
    def server_info(self) -> dict[str, Any] | None:
        info = self.client.server_info
        return info.model_dump(by_alias=True, mode="json", exclude_none=True) if info else None

    async def _call[R](
        self,
        method: str,
        fn: Callable[[], Awaitable[R]],
        *,
        timeout: float,
        sdk_timeout: bool = True,
        target: str | None = None,
    ) -> R:
        """Run one SDK call with a probe and a deadline; map every failure.
        Each call is a span (``telemetry.mcp_client_span``) and a sample of
        ``mcp_client_operation_duration_seconds``.

        With ``sdk_timeout`` the SDK enforces ``timeout`` itself (better error,
        courtesy cancel) and our deadline is only a backstop a little later.
        """
        probe = CallProbe(method=method)
        token = CURRENT_PROBE.set(probe)
        started = time.monotonic()
        error_type = ""
        with telemetry.mcp_client_span(
            method,
            url=self.target.url,
            target=target,
            protocol_version=self._client.protocol_version if self._client else None,
            session_id=self._session.id,
        ) as span:
            try:
                with anyio.fail_after(timeout + (_BACKSTOP if sdk_timeout else 0)):
                    return await fn()
            except anyio.get_cancelled_exc_class():
                error_type = "cancelled"
                raise
            except Exception as exc:
                failure = classify(exc, probe=probe, method=method, server=self.target.safe_url)
                error_type = failure.category
                telemetry.span_failed(span, error_type, failure.message)
                raise failure from primary(exc)
            finally:
                CURRENT_PROBE.reset(token)
                telemetry.span_note(span, {"jsonrpc.request.id": _text(probe.request_id)})
                metrics.mcp_client_operation_duration.labels(
                    mcp_method_name=method, error_type=error_type
                ).observe(time.monotonic() - started)

    async def _request(self, request: Any, result_type: type[T], *, timeout: float | None) -> T:
        seconds = self._call_timeout if timeout is None else timeout
        session = self.client.session
        return await self._call(
            request.method,
            lambda: session.send_request(
                request, result_type, request_read_timeout_seconds=seconds
            ),
            timeout=seconds,
            target=getattr(getattr(request, "params", None), "name", None),
        )

    # --- capabilities ------------------------------------------------------------------

    async def capabilities(
        self, *, timeout: float | None = None, every_location: bool = False
    ) -> ServerCapabilities:
        """The server's events / conversation-events / hooks capabilities (cached).

        ``every_location``: read the raw ``server/discover`` result even when
        the parsed capabilities already have every feature, so that every
        place a capability sits is known (the events dialect rests on it).
        """
        if self._capabilities is not None and (
            not every_location or "_discover" in self._capabilities.raw or self.is_legacy
        ):
            return self._capabilities
        caps = self.client.server_capabilities
        raw = caps.model_dump(by_alias=True, mode="json", exclude_none=True)
        values, sources = resolve(
            extensions=caps.extensions,
            experimental=caps.experimental,
            fallback=None,
            fallback_source="discover",
        )
        if (missing_features(values) or every_location) and not self.is_legacy:
            version = self.protocol_version
            session = self.client.session
            discovered = await self._call(
                "server/discover",
                lambda: session.send_discover(version),
                timeout=self._call_timeout if timeout is None else timeout,
                sdk_timeout=False,
            )
            discover_caps = discovered.get("capabilities")
            if isinstance(discover_caps, Mapping):
                raw["_discover"] = copy.deepcopy(dict(discover_caps))
                values, sources = resolve(
                    extensions=caps.extensions,
                    experimental=caps.experimental,
                    fallback=discover_caps,
                    fallback_source="discover",
                )
        self._capabilities = ServerCapabilities(
            events=values["events"],
            conversation_events=values["conversation_events"],
            hooks=values["hooks"],
            sources=sources,
            protocol_version=self.protocol_version,
            server_info=self.server_info,
            raw=raw,
        )
        return self._capabilities


def _text(value: Any) -> str | None:
    """A JSON-RPC id as the conventions record it (a string; absent for none)."""
    return None if value is None else str(value)
