"""The events extension's calls (events/list, poll, subscribe, unsubscribe,
stream), as a mixin of ``McpSession``: the session owns the connection and
the request plumbing (``_request``, ``_call``); this module owns the wire
semantics of the events methods."""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import mcp_types as types
from pydantic import BaseModel

from switchboard import telemetry
from switchboard.mcp import wire
from switchboard.mcp.errors import CallProbe, McpCallError, classify
from switchboard.mcp.streams import SUBSCRIPTION_META_KEY, EventStream, StreamMessage
from switchboard.mcp.target import UNSET, Unset
from switchboard.mcp.transport import CURRENT_PROBE, SessionNote

if TYPE_CHECKING:
    from mcp.client import Client

    from switchboard.mcp.target import McpTarget

T = TypeVar("T", bound=BaseModel)

_MAX_PAGES = 100
_STREAM_METHODS = ("active", "event", "heartbeat", "error", "terminated", "list_changed")


logger = logging.getLogger(__name__)


class EventCalls:
    """Mixed into ``McpSession``; relies on its ``_request``, ``_call``,
    ``client``, ``target`` and ``_streams``."""

    # What the mixin relies on, declared for readers and the type checker;
    # ``McpSession.__init__`` sets them.
    target: McpTarget
    _streams: dict[int, EventStream]
    # Open streams by the subscriptionId their notifications carry (the
    # request id as a string), filled as ids are first seen: the id is known
    # only once the request went out.
    _stream_routes: dict[str, EventStream]
    _stream_keys: Iterator[int]
    _call_timeout: float
    _session: SessionNote

    if TYPE_CHECKING:

        @property
        def client(self) -> Client: ...

        async def _request(
            self, request: Any, result_type: type[T], *, timeout: float | None
        ) -> T: ...

    async def list_events(
        self, *, cursor: str | None = None, timeout: float | None = None
    ) -> wire.EventsListResult:
        """One page of ``events/list``."""
        params = wire.EventsListParams(cursor=cursor) if cursor else wire.EventsListParams()
        return await self._request(
            wire.EventsListRequest(params=params), wire.EventsListResult, timeout=timeout
        )

    async def list_all_events(
        self, *, max_pages: int = _MAX_PAGES, timeout: float | None = None
    ) -> list[wire.EventDescriptor]:
        """Every page of ``events/list``, following ``nextCursor`` until it is absent."""
        events: list[wire.EventDescriptor] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(max_pages):
            page = await self.list_events(cursor=cursor, timeout=timeout)
            events.extend(page.events)
            cursor = page.next_cursor or None
            if cursor is None:
                return events
            if cursor in seen:
                raise McpCallError(
                    "protocol",
                    "events/list returned a nextCursor it had already returned.",
                    method="events/list",
                    server=self.target.safe_url,
                )
            seen.add(cursor)
        raise McpCallError(
            "protocol",
            f"events/list did not end within {max_pages} pages.",
            method="events/list",
            server=self.target.safe_url,
        )

    async def poll(
        self,
        *,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        cursor: str | None = None,
        max_age_ms: int | None = None,
        max_events: int | None = None,
        timeout_ms: int | None = None,
        timeout: float | None = None,
    ) -> wire.EventsPollResult:
        """``events/poll``. ``cursor=None`` is sent as ``null`` ("start from now").

        With ``timeout_ms`` (long poll) the call deadline is extended by it.
        """
        params = wire.EventsPollParams(
            name=name,
            arguments=dict(arguments or {}),
            cursor=cursor,
            **_present(max_age_ms=max_age_ms, max_events=max_events, timeout_ms=timeout_ms),
        )
        seconds = self._call_timeout if timeout is None else timeout
        if timeout_ms:
            seconds += timeout_ms / 1000
        return await self._request(
            wire.EventsPollRequest(params=params), wire.EventsPollResult, timeout=seconds
        )

    async def subscribe(
        self,
        *,
        name: str,
        arguments: Mapping[str, Any] | None,
        url: str,
        secret: str,
        cursor: str | None = None,
        max_age_ms: int | None = None,
        ttl_ms: int | None | Unset = UNSET,
        timeout: float | None = None,
    ) -> wire.EventsSubscribeResult:
        """``events/subscribe`` (webhook; also the refresh).

        ``cursor`` is always sent (null = now). ``ttl_ms``: UNSET = omit
        (server default), None = ask for no expiry, int = suggested lifetime.
        The server verifies the endpoint while this call is in flight, so
        the caller's receiver must already know the secret.
        """
        extra: dict[str, Any] = _present(max_age_ms=max_age_ms)
        if not isinstance(ttl_ms, Unset):
            extra["ttl_ms"] = ttl_ms
        params = wire.EventsSubscribeParams(
            name=name,
            arguments=dict(arguments or {}),
            delivery=wire.WebhookDelivery(url=url, secret=secret),
            cursor=cursor,
            **extra,
        )
        return await self._request(
            wire.EventsSubscribeRequest(params=params), wire.EventsSubscribeResult, timeout=timeout
        )

    async def unsubscribe(
        self,
        *,
        name: str,
        arguments: Mapping[str, Any] | None,
        url: str,
        timeout: float | None = None,
    ) -> None:
        """``events/unsubscribe``. Any error is raised as it came: whether a
        NotFound (or a ChatGPT server's "unknown event") means "already gone"
        depends on the server's dialect, which the caller knows."""
        params = wire.EventsUnsubscribeParams(
            name=name,
            arguments=dict(arguments or {}),
            delivery=wire.UnsubscribeDelivery(url=url),
        )
        await self._request(
            wire.EventsUnsubscribeRequest(params=params), wire.AnyResult, timeout=timeout
        )

    @asynccontextmanager
    async def stream(
        self,
        *,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        cursor: str | None = None,
        max_age_ms: int | None = None,
        idle_timeout: float | None = None,
    ) -> AsyncIterator[EventStream]:
        """Open an ``events/stream`` push subscription for the ``async with`` body.

            async with s.stream(name="deploy.status", cursor=saved) as stream:
                async for msg in stream:      # StreamMessage
                    ...

        The request stays open until the server ends it (iteration stops;
        ``stream.result`` holds the final result) or the block exits, which
        aborts the request (the spec's cancellation on HTTP). A refused
        subscription raises ``McpCallError`` from the iteration. With
        ``idle_timeout``, silence that long (no event, heartbeat or other
        frame) raises ``McpCallError("timeout")``: the caller reconnects with
        its last cursor (spec: abort after 2x the heartbeat interval).
        """
        params = wire.EventsStreamParams(
            name=name,
            arguments=dict(arguments or {}),
            cursor=cursor,
            **_present(max_age_ms=max_age_ms),
        )
        async with self._held_request(
            wire.EventsStreamRequest(params=params), idle_timeout=idle_timeout
        ) as stream:
            yield stream

    @asynccontextmanager
    async def listen(
        self, *, notifications: Mapping[str, Any], idle_timeout: float | None = None
    ) -> AsyncIterator[EventStream]:
        """Open a ``subscriptions/listen`` stream (2026-07-28) with a raw filter,
        e.g. ``{"eventsListChanged": True}`` (SEP-3415 §"Dynamic event types").

        The SDK's own ``Client.listen`` knows only the core filter keys and
        demultiplexes only core notifications, so this holds the request like
        ``stream``: the first message is ``acknowledged`` (``params
        ["notifications"]`` = what the server will honour), then each
        ``notifications/events/list_changed`` the server sends on it.
        """
        request = types.SubscriptionsListenRequest(
            params=types.SubscriptionsListenRequestParams(
                notifications=types.SubscriptionFilter.model_validate(dict(notifications))
            )
        )
        async with self._held_request(request, idle_timeout=idle_timeout) as stream:
            yield stream

    @asynccontextmanager
    async def _held_request(
        self, request: Any, *, idle_timeout: float | None
    ) -> AsyncIterator[EventStream]:
        """Send ``request`` and keep it open while the body runs; its
        notifications (routed by ``_meta`` subscriptionId = the request's id)
        arrive on the yielded ``EventStream``."""
        session = self.client.session
        key = next(self._stream_keys)
        method = request.method
        probe = CallProbe(method=method)
        stream = EventStream(probe=probe, idle_timeout=idle_timeout)
        self._streams[key] = stream

        async def run() -> None:
            token = CURRENT_PROBE.set(probe)
            try:
                result = await session.send_request(
                    request, wire.AnyResult, request_read_timeout_seconds=math.inf
                )
                await stream.finish(result=result.model_dump(by_alias=True, mode="json"))
            except anyio.get_cancelled_exc_class():
                raise
            except Exception as exc:
                await stream.finish(
                    error=classify(exc, probe=probe, method=method, server=self.target.safe_url)
                )
            finally:
                CURRENT_PROBE.reset(token)

        # The held request is one span for as long as it stays open (the MCP
        # conventions' client span: it ends when the response, or our abort, does).
        span = telemetry.mcp_held_span_start(
            method,
            url=self.target.url,
            protocol_version=self.client.protocol_version,
            session_id=self._session.id,
        )
        try:
            async with anyio.create_task_group() as tg:
                with telemetry.span_current(span):  # the request carries it
                    tg.start_soon(run)
                try:
                    yield stream
                finally:
                    tg.cancel_scope.cancel()
        except BaseExceptionGroup as group:
            # The body ran inside our task group, which wraps whatever it raised;
            # `run` never raises, so hand the body's own exception back unwrapped.
            failures = [e for e in group.exceptions if _has_failure(e)]
            if len(failures) == 1 and not isinstance(failures[0], BaseExceptionGroup):
                raise failures[0] from None
            raise
        finally:
            self._streams.pop(key, None)
            if stream.request_id is not None:
                self._stream_routes.pop(str(stream.request_id), None)
            stream.close()
            _stream_span_end(span, stream)

    def _stream_for(self, subscription_id: Any) -> EventStream | None:
        """``_route``, by a dict lookup once the id has been seen: a session
        may carry a thousand streams, and every frame is routed."""
        if subscription_id is None:
            return _route(self._streams.values(), None)
        routes = self._stream_routes
        known = routes.get(str(subscription_id))
        if known is not None:
            return known
        stream = _route(self._streams.values(), subscription_id)
        if stream is not None and str(stream.request_id) == str(subscription_id):
            routes[str(subscription_id)] = stream
        return stream

    async def _on_stream_notification(
        self, kind: str, params: wire.EventsNotificationParams
    ) -> None:
        message = StreamMessage.from_params(kind, params)
        target = self._stream_for(message.subscription_id)
        if target is None:
            logger.debug("dropped notifications/events/%s for no open stream", kind)
            return
        await target.deliver(message)

    async def _on_message(self, message: Any) -> None:
        """The SDK's ``message_handler``: core notifications it does not
        consume itself. We take one: the acknowledgement of our own
        ``subscriptions/listen`` (the SDK consumes only its own listens')."""
        if not isinstance(message, types.SubscriptionsAcknowledgedNotification):
            return
        params = message.params.model_dump(by_alias=True, mode="json", exclude_none=True)
        meta = params.get("_meta") or {}
        ack = StreamMessage(
            kind="acknowledged",
            params=params,
            subscription_id=meta.get(SUBSCRIPTION_META_KEY) if isinstance(meta, dict) else None,
        )
        target = self._stream_for(ack.subscription_id)
        if target is not None:
            await target.deliver(ack)


def _stream_span_end(span: Any, stream: EventStream) -> None:
    """End a held request's span: its id, and ``error.type`` when the server
    refused or broke the stream (our own abort, the usual end, is no error)."""
    telemetry.span_note(span, {"jsonrpc.request.id": _text(stream.request_id)})
    if isinstance(stream.error, McpCallError):
        telemetry.span_failed(span, stream.error.category, stream.error.message)
    if span is not None:
        span.end()


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _present(**values: Any) -> dict[str, Any]:
    """Only the keyword arguments that were given (not None): optional wire fields."""
    return {key: value for key, value in values.items() if value is not None}


def _has_failure(exc: BaseException) -> bool:
    """Whether a (group of) exception(s) contains anything but cancellation."""
    if isinstance(exc, BaseExceptionGroup):
        return any(_has_failure(inner) for inner in exc.exceptions)
    return not isinstance(exc, anyio.get_cancelled_exc_class())


def _route(streams: Any, subscription_id: Any) -> EventStream | None:
    """The open stream a notification belongs to, by its subscriptionId (= request id).

    A notification without an id goes to the only open stream, if there is one.
    """
    open_streams = list(streams)
    if subscription_id is not None:
        for stream in open_streams:
            if stream.request_id is not None and str(stream.request_id) == str(subscription_id):
                return stream
    if len(open_streams) == 1:
        return open_streams[0]
    return None


async def _all_pages(
    fetch: Callable[[str | None], Awaitable[tuple[list[Any], str | None]]],
    into: list[Any],
    *,
    method: str,
    server: str,
) -> None:
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(_MAX_PAGES):
        items, cursor = await fetch(cursor)
        into.extend(items)
        if not cursor:
            return
        if cursor in seen:
            raise McpCallError(
                "protocol", f"{method} repeated a nextCursor.", method=method, server=server
            )
        seen.add(cursor)
    raise McpCallError(
        "protocol", f"{method} did not end within {_MAX_PAGES} pages.", method=method, server=server
    )
