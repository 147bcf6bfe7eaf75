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

Everything lives in `McpeHub`; the control routes (`refserver.mcpe_control`)
drive it.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import uuid
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import anyio
from cronsim import CronSim, CronSimError
from mcp.server import ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http import GET_STREAM_KEY
from mcp_types import CallToolResult, TextContent
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from refserver.streams import WireNotification

logger = logging.getLogger(__name__)

SERVER_NAME = "Ref MCPE"
PRIORITIES = ("low", "normal", "high", "critical")
CHANNELS = ("realtime", "cron", "scheduled")
STATUSES = ("active", "paused", "expired")
HANDLER_TYPES = ("bash", "agent", "webhook")
DEFAULT_QUEUE_LIMIT = 1000  # upstream's maxEventsPerSubscription
TICK_SECONDS = 0.1
SEND_TIMEOUT = 2.0
RECORD_LIMIT = 2000
SESSION_LIMIT = 200
CRON_NICKNAMES = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}

# -- the proposal's input schemas (seed 001, §2) --------------------------------------

FILTER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "eventTypes": {
            "type": "array",
            "items": {"type": "string"},
            "description": (
                "Event types, supports wildcards (e.g., ['github.push', 'github.issue.*'])"
            ),
        },
        "tags": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Filter by tags (OR matching)",
        },
        "priority": {
            "type": "array",
            "items": {"enum": list(PRIORITIES)},
            "description": "Filter by priority levels",
        },
    },
}
DELIVERY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "channels": {
            "type": "array",
            "items": {"enum": list(CHANNELS)},
            "description": "How events should be delivered",
        },
        "cronSchedule": {
            "type": "object",
            "properties": {
                "expression": {
                    "type": "string",
                    "description": "Cron expression (e.g., '0 9 * * *')",
                },
                "timezone": {"type": "string", "description": "IANA timezone"},
                "aggregateEvents": {"type": "boolean", "default": True},
            },
            "description": "For cron delivery channel",
        },
        "scheduledDelivery": {
            "type": "object",
            "properties": {
                "deliverAt": {"type": "string", "format": "date-time"},
                "timezone": {"type": "string"},
                "autoExpire": {"type": "boolean", "default": True},
            },
            "description": "For scheduled (one-time) delivery",
        },
    },
    "required": ["channels"],
}
HANDLER_SCHEMA: dict[str, Any] = {
    "description": "Optional handler to process events",
    "oneOf": [
        {
            "type": "object",
            "properties": {
                "type": {"const": "bash"},
                "command": {"type": "string"},
                "args": {"type": "array", "items": {"type": "string"}},
                "input": {"enum": ["stdin", "env", "args"]},
            },
            "required": ["type", "command"],
        },
        {
            "type": "object",
            "properties": {
                "type": {"const": "agent"},
                "systemPrompt": {"type": "string"},
                "model": {"type": "string"},
                "tools": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["type"],
        },
        {
            "type": "object",
            "properties": {
                "type": {"const": "webhook"},
                "url": {"type": "string", "format": "uri"},
                "headers": {"type": "object"},
            },
            "required": ["type", "url"],
        },
    ],
}
SUBSCRIPTION_ID_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"subscriptionId": {"type": "string", "format": "uuid"}},
    "required": ["subscriptionId"],
}
TOOL_SCHEMAS: dict[str, dict[str, Any]] = {
    "events_subscribe": {
        "type": "object",
        "properties": {
            "filter": FILTER_SCHEMA,
            "delivery": DELIVERY_SCHEMA,
            "handler": HANDLER_SCHEMA,
            "expiresAt": {
                "type": "string",
                "format": "date-time",
                "description": "When the subscription should expire",
            },
        },
    },
    "events_unsubscribe": SUBSCRIPTION_ID_SCHEMA,
    "events_list": {
        "type": "object",
        "properties": {"status": {"enum": list(STATUSES)}},
    },
    "events_pause": SUBSCRIPTION_ID_SCHEMA,
    "events_resume": SUBSCRIPTION_ID_SCHEMA,
    "events_update": {
        "type": "object",
        "properties": {
            "subscriptionId": {"type": "string", "format": "uuid"},
            "filter": FILTER_SCHEMA,
            "delivery": DELIVERY_SCHEMA,
            "expiresAt": {"type": "string", "format": "date-time", "nullable": True},
        },
        "required": ["subscriptionId"],
    },
}
TOOL_DESCRIPTIONS = {
    "events_subscribe": "Subscribe to events matching a filter",
    "events_unsubscribe": "Remove a subscription",
    "events_list": "List active subscriptions",
    "events_pause": "Pause a subscription without losing state",
    "events_resume": "Resume a paused subscription",
    "events_update": "Modify an existing subscription",
}


class Refused(Exception):
    """A tool call the server turns down: `isError: true` with this text."""


class Unsendable(Exception):
    """Why a notification could not go out (recorded as dropped)."""


# -- time --------------------------------------------------------------------------


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """JavaScript's `toISOString()`: UTC, milliseconds, `Z`."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def zone(name: Any, where: str) -> ZoneInfo:
    if name is None:
        return ZoneInfo("UTC")
    if not isinstance(name, str) or not name:
        raise Refused(f"{where} must be an IANA timezone name")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise Refused(f"{where}: unknown timezone {name!r}") from None


def parse_time(value: Any, where: str, tz: ZoneInfo | None = None) -> datetime:
    """An ISO 8601 date-time; one without an offset is read in `tz` (else UTC)."""
    if not isinstance(value, str):
        raise Refused(f"{where} must be an ISO 8601 date-time string")
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise Refused(f"{where} is not an ISO 8601 date-time: {value!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=tz or UTC)
    return moment


def cron_expression(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Refused("delivery.cronSchedule.expression must be a cron expression")
    expression = CRON_NICKNAMES.get(value.strip().lower(), value.strip())
    try:
        CronSim(expression, utcnow())
    except (CronSimError, ValueError, IndexError) as exc:
        raise Refused(f"delivery.cronSchedule.expression {value!r} is invalid: {exc}") from None
    return expression


def next_firing(expression: str, tz: ZoneInfo, after: datetime) -> datetime:
    return next(CronSim(expression, after.astimezone(tz))).astimezone(UTC)


# -- argument checks -------------------------------------------------------------------


def _string_list(value: Any, where: str, allowed: tuple[str, ...] | None = None) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Refused(f"{where} must be an array of strings")
    if allowed is not None:
        unknown = [v for v in value if v not in allowed]
        if unknown:
            raise Refused(f"{where}: {unknown} not in {list(allowed)}")
    return list(value)


def check_filter(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Refused("filter must be an object")
    checked = copy.deepcopy(value)
    if "eventTypes" in value:
        _string_list(value["eventTypes"], "filter.eventTypes")
    if "tags" in value:
        _string_list(value["tags"], "filter.tags")
    if "priority" in value:
        _string_list(value["priority"], "filter.priority", PRIORITIES)
    return checked


def check_delivery(value: Any) -> dict[str, Any]:
    if value is None:
        return {"channels": ["realtime"]}
    if not isinstance(value, dict):
        raise Refused("delivery must be an object")
    if "channels" not in value:
        raise Refused("delivery.channels is required")
    channels = _string_list(value["channels"], "delivery.channels", CHANNELS)
    if not channels:
        raise Refused(f"delivery.channels must name at least one of {list(CHANNELS)}")
    if "cron" in channels:
        cron = value.get("cronSchedule")
        if not isinstance(cron, dict):
            raise Refused("delivery.cronSchedule is required for the cron channel")
        cron_expression(cron.get("expression"))
        zone(cron.get("timezone"), "delivery.cronSchedule.timezone")
        limit = cron.get("maxEventsPerDelivery")
        if limit is not None and (
            not isinstance(limit, int) or isinstance(limit, bool) or limit < 1
        ):
            raise Refused("delivery.cronSchedule.maxEventsPerDelivery must be a positive integer")
        if "aggregateEvents" in cron and not isinstance(cron["aggregateEvents"], bool):
            raise Refused("delivery.cronSchedule.aggregateEvents must be a boolean")
    if "scheduled" in channels:
        scheduled = value.get("scheduledDelivery")
        if not isinstance(scheduled, dict):
            raise Refused("delivery.scheduledDelivery is required for the scheduled channel")
        tz = zone(scheduled.get("timezone"), "delivery.scheduledDelivery.timezone")
        parse_time(scheduled.get("deliverAt"), "delivery.scheduledDelivery.deliverAt", tz)
        if "autoExpire" in scheduled and not isinstance(scheduled["autoExpire"], bool):
            raise Refused("delivery.scheduledDelivery.autoExpire must be a boolean")
    return copy.deepcopy(value)


def check_handler(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise Refused("handler must be an object")
    kind = value.get("type")
    if kind not in HANDLER_TYPES:
        raise Refused(f"handler.type must be one of {list(HANDLER_TYPES)}")
    if kind == "bash" and not isinstance(value.get("command"), str):
        raise Refused("handler.command is required for a bash handler")
    if kind == "webhook" and not isinstance(value.get("url"), str):
        raise Refused("handler.url is required for a webhook handler")
    return copy.deepcopy(value)


def check_subscription_id(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise Refused("subscriptionId is required")
    return value


# -- events and matching ------------------------------------------------------------------


def make_event(event_type: str, data: Any, metadata: dict[str, Any] | None) -> dict[str, Any]:
    meta = {k: copy.deepcopy(v) for k, v in (metadata or {}).items() if v is not None}
    meta.setdefault("timestamp", iso(utcnow()))
    return {
        "id": str(uuid.uuid4()),
        "type": event_type,
        "data": copy.deepcopy(data) if data is not None else {},
        "metadata": meta,
    }


def type_matches(pattern: str, event_type: str) -> bool:
    """Exact, or `prefix.*` for anything under `prefix.`; a bare `*` is neither."""
    if pattern.endswith(".*"):
        return event_type.startswith(pattern[:-1])
    return pattern == event_type


def matches(filt: dict[str, Any], event: dict[str, Any]) -> bool:
    """Upstream's rules: each given filter must hold (AND); tags are OR; an
    event without `priority` never satisfies a priority filter."""
    metadata = event.get("metadata") or {}
    types = filt.get("eventTypes") or []
    if types and not any(type_matches(p, event["type"]) for p in types):
        return False
    tags = filt.get("tags") or []
    event_tags = metadata.get("tags")
    if tags and not (isinstance(event_tags, list) and any(t in tags for t in event_tags)):
        return False
    priorities = filt.get("priority") or []
    return not priorities or metadata.get("priority") in priorities


# -- subscriptions --------------------------------------------------------------------------


@dataclass
class McpeSubscription:
    id: str
    session: str | None
    filter: dict[str, Any]
    delivery: dict[str, Any]
    handler: dict[str, Any] | None
    created_at: str
    updated_at: str
    expires_at: str | None = None
    status: str = "active"
    pending: list[dict[str, Any]] = field(default_factory=list)
    next_cron: datetime | None = None
    scheduled_done: bool = False
    sent_events: int = 0
    sent_batches: int = 0
    sent_batched_events: int = 0
    sent_expired: int = 0
    dropped: int = 0

    # Derived from `delivery`.

    @property
    def channels(self) -> list[str]:
        return list(self.delivery.get("channels") or [])

    @property
    def cron(self) -> dict[str, Any]:
        return self.delivery.get("cronSchedule") or {}

    @property
    def scheduled(self) -> dict[str, Any]:
        return self.delivery.get("scheduledDelivery") or {}

    @property
    def batching(self) -> bool:
        return "cron" in self.channels or ("scheduled" in self.channels and not self.scheduled_done)

    def deliver_at(self) -> datetime | None:
        if "scheduled" not in self.channels:
            return None
        tz = zone(self.scheduled.get("timezone"), "timezone")
        return parse_time(self.scheduled.get("deliverAt"), "deliverAt", tz)

    def auto_expire(self) -> bool:
        return self.scheduled.get("autoExpire") is not False  # default true

    def queue_limit(self) -> int:
        limit = self.cron.get("maxEventsPerDelivery") if "cron" in self.channels else None
        return limit if isinstance(limit, int) and limit > 0 else DEFAULT_QUEUE_LIMIT

    def expiry(self) -> datetime | None:
        return parse_time(self.expires_at, "expiresAt") if self.expires_at else None

    def schedule(self, now: datetime) -> None:
        """(Re)start the cron timer after a subscribe or a delivery change."""
        if "cron" in self.channels:
            tz = zone(self.cron.get("timezone"), "timezone")
            self.next_cron = next_firing(cron_expression(self.cron.get("expression")), tz, now)
        else:
            self.next_cron = None
        self.scheduled_done = False
        if not self.batching:
            self.pending.clear()

    # Shapes.

    def view(self, *, with_handler: bool = True) -> dict[str, Any]:
        """What the tools answer (`events_list` entries, `events_update`)."""
        out: dict[str, Any] = {
            "subscriptionId": self.id,
            "status": self.status,
            "filter": copy.deepcopy(self.filter),
            "delivery": copy.deepcopy(self.delivery),
        }
        if with_handler and self.handler is not None:
            out["handler"] = copy.deepcopy(self.handler)
        out["createdAt"] = self.created_at
        if self.expires_at is not None:
            out["expiresAt"] = self.expires_at
        return out

    def describe(self) -> dict[str, Any]:
        """What the control surface shows."""
        deliver_at = self.deliver_at() if not self.scheduled_done else None
        return {
            "subscriptionId": self.id,
            "status": self.status,
            "filter": copy.deepcopy(self.filter),
            "delivery": copy.deepcopy(self.delivery),
            "handler": copy.deepcopy(self.handler),
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "expiresAt": self.expires_at,
            "session": self.session,
            "sent": {
                "events": self.sent_events,
                "batches": self.sent_batches,
                "batchedEvents": self.sent_batched_events,
                "expired": self.sent_expired,
            },
            "dropped": self.dropped,
            "pending": len(self.pending),
            "nextCronAt": iso(self.next_cron) if self.next_cron else None,
            "deliverAt": iso(deliver_at) if deliver_at else None,
        }


class McpeHub:
    """All MCPE state: subscriptions, the sessions that own them, records."""

    def __init__(self) -> None:
        self.subscriptions: dict[str, McpeSubscription] = {}
        self.calls: list[dict[str, Any]] = []
        self.dropped: list[dict[str, Any]] = []
        # Mcp-Session-Id -> the SDK session object (for standalone notifications).
        self.sessions: dict[str, Any] = {}
        self.server: MCPServer[Any] | None = None  # set by build_mcpe_server
        self._lock = anyio.Lock()

    # -- sessions ------------------------------------------------------------------------

    def _transports(self) -> dict[str, Any]:
        if self.server is None:
            return {}
        try:
            manager = self.server.session_manager
        except RuntimeError:
            return {}
        return manager._server_instances

    def get_stream_open(self, session_id: str | None) -> bool:
        transport = self._transports().get(session_id) if session_id else None
        return bool(
            transport is not None
            and not transport.is_terminated
            and GET_STREAM_KEY in transport._request_streams
        )

    def remember_session(self, session_id: str, session: Any) -> None:
        self.sessions[session_id] = session
        if len(self.sessions) > SESSION_LIMIT:
            live = self._transports()
            for sid in [s for s in self.sessions if s not in live]:
                del self.sessions[sid]

    def describe_sessions(self) -> list[dict[str, Any]]:
        return [
            {
                "session": sid,
                "getStream": self.get_stream_open(sid),
                "subscriptions": [s.id for s in self.subscriptions.values() if s.session == sid],
            }
            for sid in self._transports()
        ]

    async def drop_sessions(self) -> list[str]:
        """End every open session from the server side (its id then answers 404)."""
        if self.server is None:
            return []
        manager = self.server.session_manager
        dropped = []
        for sid, transport in list(manager._server_instances.items()):
            await manager._discard_session(sid, transport)
            self.sessions.pop(sid, None)
            dropped.append(sid)
        return dropped

    # -- sending -------------------------------------------------------------------------

    async def _send(self, sub: McpeSubscription, method: str, params: dict[str, Any]) -> bool:
        """A standalone notification to the subscription's session, or a drop record."""
        try:
            if sub.session is None:
                raise Unsendable("subscription has no session")
            transport = self._transports().get(sub.session)
            if transport is None or transport.is_terminated:
                raise Unsendable("session closed")
            if GET_STREAM_KEY not in transport._request_streams:
                raise Unsendable("no GET stream open")
            session = self.sessions.get(sub.session)
            if session is None:
                raise Unsendable("session unknown")
            try:
                with anyio.fail_after(SEND_TIMEOUT):
                    await session.send_notification(WireNotification(method=method, params=params))
            except Exception as exc:  # a dead stream must not break the caller
                raise Unsendable(f"send failed: {exc!r}") from None
        except Unsendable as why:
            sub.dropped += 1
            self.dropped.append(
                {
                    "at": iso(utcnow()),
                    "method": method,
                    "params": params,
                    "subscriptionId": sub.id,
                    "session": sub.session,
                    "reason": str(why),
                }
            )
            del self.dropped[:-RECORD_LIMIT]
            return False
        return True

    async def send_event(self, sub: McpeSubscription, event: dict[str, Any]) -> bool:
        sent = await self._send(sub, "events/event", {"subscriptionId": sub.id, "event": event})
        sub.sent_events += sent
        return sent

    async def send_batch(self, sub: McpeSubscription) -> list[dict[str, Any]]:
        """Send what is pending as one `events/batch` (nothing if nothing is pending)."""
        events, sub.pending = sub.pending, []
        if not events:
            return []
        if await self._send(sub, "events/batch", {"subscriptionId": sub.id, "events": events}):
            sub.sent_batches += 1
            sub.sent_batched_events += len(events)
        return events

    async def expire(self, sub: McpeSubscription) -> bool:
        sub.status = "expired"
        sub.pending.clear()
        sub.next_cron = None
        sub.scheduled_done = True
        sub.updated_at = iso(utcnow())
        sent = await self._send(sub, "events/subscription_expired", {"subscriptionId": sub.id})
        sub.sent_expired += sent
        return sent

    # -- publishing and timers -----------------------------------------------------------------

    async def publish(self, event: dict[str, Any]) -> dict[str, list[dict[str, str]]]:
        """Deliver to every matching subscription: realtime at once, cron/scheduled queued."""
        outcome: dict[str, list[dict[str, str]]] = {"delivered": [], "queued": [], "dropped": []}
        async with self._lock:
            now = utcnow()
            for sub in list(self.subscriptions.values()):
                if sub.status == "active" and (expiry := sub.expiry()) and expiry <= now:
                    await self.expire(sub)
                if sub.status != "active" or not matches(sub.filter, event):
                    continue
                ref = {"subscriptionId": sub.id, "eventId": event["id"]}
                if "realtime" in sub.channels:
                    sent = await self.send_event(sub, event)
                    outcome["delivered" if sent else "dropped"].append(ref)
                if sub.batching:
                    limit = sub.queue_limit()
                    sub.pending.append(event)
                    del sub.pending[:-limit]  # full: the oldest go (upstream)
                    outcome["queued"].append(ref)
        return outcome

    async def fire(self, sub: McpeSubscription, *, scheduled: bool) -> dict[str, Any]:
        """What a cron firing or the scheduled time does (also `/control/mcpe/flush`)."""
        if sub.status == "paused":
            return {"subscriptionId": sub.id, "events": [], "expired": False, "skipped": "paused"}
        events = await self.send_batch(sub)
        expired = False
        if scheduled:
            sub.scheduled_done = True
            if sub.auto_expire():
                await self.expire(sub)
                expired = True
            elif "cron" not in sub.channels:
                sub.pending.clear()
        return {"subscriptionId": sub.id, "events": events, "expired": expired}

    async def expire_now(self, sub: McpeSubscription) -> bool:
        async with self._lock:
            return await self.expire(sub)

    async def flush(self, sub: McpeSubscription) -> dict[str, Any]:
        if sub.status == "expired":
            raise ValueError(f"subscription {sub.id} has expired")
        if not sub.batching:
            raise ValueError(f"subscription {sub.id} has no pending cron/scheduled delivery")
        async with self._lock:
            return await self.fire(
                sub, scheduled="scheduled" in sub.channels and not sub.scheduled_done
            )

    async def tick(self) -> None:
        async with self._lock:
            now = utcnow()
            for sub in list(self.subscriptions.values()):
                if sub.status == "expired" or self.subscriptions.get(sub.id) is not sub:
                    continue
                expiry = sub.expiry()
                if expiry is not None and expiry <= now:
                    await self.expire(sub)
                    continue
                if sub.next_cron is not None and sub.next_cron <= now:
                    await self.fire(sub, scheduled=False)
                    if sub.status != "expired":
                        self._advance_cron(sub, now)
                deliver_at = sub.deliver_at()
                if (
                    deliver_at is not None
                    and not sub.scheduled_done
                    and sub.status == "active"
                    and deliver_at <= now
                ):
                    await self.fire(sub, scheduled=True)

    def _advance_cron(self, sub: McpeSubscription, now: datetime) -> None:
        tz = zone(sub.cron.get("timezone"), "timezone")
        sub.next_cron = next_firing(cron_expression(sub.cron.get("expression")), tz, now)

    async def run_ticker(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:  # keep the timers alive whatever one subscription does
                logger.exception("MCPE ticker failed")
            await anyio.sleep(TICK_SECONDS)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tg:
            tg.start_soon(self.run_ticker)
            try:
                yield
            finally:
                tg.cancel_scope.cancel()

    # -- tools ---------------------------------------------------------------------------------

    def owned(self, session: str | None, sub_id: Any) -> McpeSubscription:
        sub = self.subscriptions.get(check_subscription_id(sub_id))
        if sub is None or sub.session != session:
            raise Refused(f"Subscription not found: {sub_id}")
        return sub

    def subscribe(self, session: str | None, arguments: dict[str, Any]) -> dict[str, Any]:
        filt = check_filter(arguments.get("filter"))
        delivery = check_delivery(arguments.get("delivery"))
        handler = check_handler(arguments.get("handler"))
        expires_at = arguments.get("expiresAt")
        if expires_at is not None:
            parse_time(expires_at, "expiresAt")
        now = utcnow()
        sub = McpeSubscription(
            id=str(uuid.uuid4()),
            session=session,
            filter=filt,
            delivery=delivery,
            handler=handler,
            created_at=iso(now),
            updated_at=iso(now),
            expires_at=expires_at,
        )
        sub.schedule(now)
        self.subscriptions[sub.id] = sub
        return sub.view(with_handler=False)

    def listing(self, session: str | None, status: Any) -> dict[str, Any]:
        if status is not None and status not in STATUSES:
            raise Refused(f"status must be one of {list(STATUSES)}")
        return {
            "subscriptions": [
                s.view()
                for s in self.subscriptions.values()
                if s.session == session and (status is None or s.status == status)
            ]
        }

    def set_paused(self, session: str | None, sub_id: Any, paused: bool) -> dict[str, Any]:
        sub = self.owned(session, sub_id)
        if sub.status == "expired":
            raise Refused(f"Subscription {sub.id} has expired")
        sub.status = "paused" if paused else "active"
        sub.updated_at = iso(utcnow())
        return {"subscriptionId": sub.id, "status": sub.status, "success": True}

    def update(self, session: str | None, arguments: dict[str, Any]) -> dict[str, Any]:
        sub = self.owned(session, arguments.get("subscriptionId"))
        if sub.status == "expired":
            raise Refused(f"Subscription {sub.id} has expired")
        filt = check_filter(arguments["filter"]) if "filter" in arguments else None
        delivery = check_delivery(arguments["delivery"]) if "delivery" in arguments else None
        if "expiresAt" in arguments and arguments["expiresAt"] is not None:
            parse_time(arguments["expiresAt"], "expiresAt")
        if filt is not None:
            sub.filter = filt
        if delivery is not None:
            sub.delivery = delivery
            sub.schedule(utcnow())
        if "expiresAt" in arguments:
            sub.expires_at = arguments["expiresAt"]
        sub.updated_at = iso(utcnow())
        return sub.view()

    def unsubscribe(self, session: str | None, sub_id: Any) -> dict[str, Any]:
        sub = self.owned(session, sub_id)
        del self.subscriptions[sub.id]
        return {"subscriptionId": sub.id, "status": "removed", "success": True}

    # -- control --------------------------------------------------------------------------------

    def forget(self) -> list[str]:
        gone = list(self.subscriptions)
        self.subscriptions.clear()
        return gone

    def reset(self) -> None:
        self.forget()
        self.calls.clear()
        self.dropped.clear()

    def record_call(self, name: Any, arguments: Any, session: str | None) -> None:
        self.calls.append({"name": name, "arguments": copy.deepcopy(arguments), "session": session})
        del self.calls[:-RECORD_LIMIT]


# -- the MCP server ----------------------------------------------------------------------------


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
