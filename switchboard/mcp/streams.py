"""The consumer side of one ``events/stream`` request (docs/events-client.md §9).

Notifications reach us through SDK ``NotificationBinding``s, one per
``notifications/events/*`` method, shared by the whole session; the session
routes each to its stream by ``_meta["io.modelcontextprotocol/subscriptionId"]``,
which is the JSON-RPC id of the ``events/stream`` request (recorded by our
transport in the call's ``CallProbe``).

The SDK dispatches each notification in its own task, so a notification can
be delivered slightly after the request's final result, and two close
notifications can swap order. When the request ends we therefore keep the
stream open until it has been quiet briefly (``_DRAIN_QUIET``) before ending
the iteration; consumers should persist the cursor of the latest
``timestamp``/event they processed and deduplicate by ``eventId`` as the
spec requires anyway.
"""

from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from switchboard.mcp import wire
from switchboard.mcp.errors import CallProbe, McpCallError

__all__ = ["SUBSCRIPTION_META_KEY", "EventStream", "StreamMessage"]

SUBSCRIPTION_META_KEY = "io.modelcontextprotocol/subscriptionId"
StreamKind = Literal[
    "active", "event", "heartbeat", "error", "terminated", "list_changed", "acknowledged"
]

_BUFFER = 1000
_DRAIN_QUIET = 0.05
_DRAIN_MAX = 1.0


@dataclass(frozen=True)
class StreamMessage:
    """One ``notifications/events/<kind>`` frame.

    ``params`` is the raw params object (``_meta`` included). Convenience:
    ``cursor``/``has_cursor`` (active, event, heartbeat), ``truncated``
    (active), ``event`` (event), ``error`` (error/terminated; both the
    current nested ``{error: {...}}`` and the older flat shape).
    """

    kind: StreamKind
    params: dict[str, Any]
    subscription_id: Any = None

    @classmethod
    def from_params(cls, kind: str, params: wire.EventsNotificationParams) -> StreamMessage:
        # A session may carry a thousand streams, all read on one event loop:
        # per frame, take what the SDK already validated (the declared
        # ``_meta`` and the extra keys, kept as parsed JSON) instead of
        # dumping the model again, and parse the occurrence only if asked.
        raw: dict[str, Any] = {}
        if params.meta is not None:
            raw["_meta"] = params.meta
        raw.update(params.model_extra or {})
        meta = raw.get("_meta") or {}
        return cls(
            kind=kind,  # type: ignore[arg-type]
            params=raw,
            subscription_id=meta.get(SUBSCRIPTION_META_KEY) if isinstance(meta, dict) else None,
        )

    @functools.cached_property
    def event(self) -> wire.EventOccurrence | None:
        """The occurrence of an ``event`` frame, parsed on first use; None
        for other frames and for a malformed occurrence (``params`` still
        carries it)."""
        if self.kind != "event":
            return None
        try:
            return wire.EventOccurrence.model_validate(self.params)
        except ValueError:
            return None

    @property
    def has_cursor(self) -> bool:
        return "cursor" in self.params

    @property
    def cursor(self) -> str | None:
        value = self.params.get("cursor")
        return value if isinstance(value, str) else None

    @property
    def truncated(self) -> bool:
        return bool(self.params.get("truncated"))

    @property
    def error(self) -> dict[str, Any] | None:
        if self.kind not in ("error", "terminated"):
            return None
        nested = self.params.get("error")
        if isinstance(nested, dict):
            return nested
        if "code" in self.params or "message" in self.params:
            return {k: self.params.get(k) for k in ("code", "message", "data") if k in self.params}
        return {}


@dataclass(eq=False)
class EventStream:
    """Async-iterable of ``StreamMessage``; see ``McpSession.stream``."""

    probe: CallProbe
    idle_timeout: float | None = None
    result: dict[str, Any] | None = None
    error: McpCallError | None = None
    _send: MemoryObjectSendStream[StreamMessage] = field(init=False, repr=False)
    _receive: MemoryObjectReceiveStream[StreamMessage] = field(init=False, repr=False)
    _last_delivery: float = field(init=False, default=0.0)

    def __post_init__(self) -> None:
        self._send, self._receive = anyio.create_memory_object_stream[StreamMessage](_BUFFER)

    @property
    def request_id(self) -> Any:
        """The JSON-RPC id of the ``events/stream`` request = the subscription id."""
        return self.probe.request_id

    @property
    def done(self) -> bool:
        return self.result is not None or self.error is not None

    async def deliver(self, message: StreamMessage) -> None:
        self._last_delivery = anyio.current_time()
        # The consumer may have left already; nothing to do then.
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self._send.send(message)

    async def finish(
        self, *, result: dict[str, Any] | None = None, error: McpCallError | None = None
    ) -> None:
        """The request ended: let in-flight notifications land, then end iteration."""
        self.result, self.error = result, error
        deadline = anyio.current_time() + _DRAIN_MAX
        self._last_delivery = anyio.current_time()
        while anyio.current_time() < deadline:
            await anyio.sleep(_DRAIN_QUIET / 2)
            if anyio.current_time() - self._last_delivery >= _DRAIN_QUIET:
                break
        self._send.close()

    def close(self) -> None:
        self._send.close()
        self._receive.close()

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> StreamMessage:
        wait = self.idle_timeout if self.idle_timeout is not None else math.inf
        try:
            with anyio.fail_after(wait):
                return await self._receive.receive()
        except TimeoutError:
            raise McpCallError(
                "timeout",
                f"No frame on events/stream for {self.idle_timeout:g}s.",
                method="events/stream",
            ) from None
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            if self.error is not None:
                raise self.error from None
            raise StopAsyncIteration from None
