"""The reference MCPE server's state: subscriptions per session, delivery
as standalone notifications, the cron/scheduled ticker (``refserver.mcpe``
explains the behaviour)."""

from __future__ import annotations

import contextlib
import copy
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http import GET_STREAM_KEY

from refserver.mcpe_rules import (
    DEFAULT_QUEUE_LIMIT,
    RECORD_LIMIT,
    SEND_TIMEOUT,
    SESSION_LIMIT,
    STATUSES,
    TICK_SECONDS,
    Refused,
    Unsendable,
    check_delivery,
    check_filter,
    check_handler,
    check_subscription_id,
    cron_expression,
    iso,
    matches,
    next_firing,
    parse_time,
    utcnow,
    zone,
)
from refserver.streams import WireNotification

logger = logging.getLogger(__name__)


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
        # Tool name -> (seconds, cleared): its calls are held that long, or
        # until the delay is cleared (`/control/mcpe/delay`).
        self.delays: dict[str, tuple[float, anyio.Event]] = {}

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
        self.delays_clear()

    def delay_set(self, tool: str, delay_ms: int) -> None:
        """Hold each call of ``tool`` for ``delay_ms`` from now on; 0 clears
        it, and the calls held now go on at once."""
        held = self.delays.pop(tool, None)
        if held is not None:
            held[1].set()
        if delay_ms > 0:
            self.delays[tool] = (delay_ms / 1000, anyio.Event())

    def delays_clear(self) -> None:
        for tool in list(self.delays):
            self.delay_set(tool, 0)

    async def held(self, tool: Any) -> None:
        """A call of ``tool``, recorded already, waits here before it is
        answered while a delay is set for it."""
        delay = self.delays.get(tool) if isinstance(tool, str) else None
        if delay is None:
            return
        seconds, cleared = delay
        with anyio.move_on_after(seconds):
            await cleared.wait()

    def record_call(self, name: Any, arguments: Any, session: str | None) -> None:
        self.calls.append({"name": name, "arguments": copy.deepcopy(arguments), "session": session})
        del self.calls[:-RECORD_LIMIT]


# -- the MCP server ----------------------------------------------------------------------------
