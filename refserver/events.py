"""The MCP Events extension: `events/list|subscribe|unsubscribe|poll|stream`.

Server side of the MCP events extension's wire messages (SEP-3415 and its
drafts). What the control
surface does to the same subscriptions (emit, gap, terminate) lives in
`refserver.fanout`.
"""

from __future__ import annotations

import time
from typing import Any

import anyio
import mcp_types as types
from mcp import MCPError
from mcp.server import ServerRequestContext
from mcp.server.mcpserver import Extension, MethodBinding
from pydantic import BaseModel, ConfigDict

from refserver import dialect, requestinfo
from refserver.catalog import loose_validate, matches_filter
from refserver.delivery import CallbackFailure, Outgoing
from refserver.eventlog import Occurrence, iso
from refserver.state import State
from refserver.streams import OpenStream, StreamItem, WireNotification
from refserver.subscriptions import (
    Subscription,
    grant_expiry,
    secret_fingerprint,
    subscription_id,
    validate_callback_url,
    validate_secret,
)

EVENTS_EXTENSION_ID = "io.modelcontextprotocol/events"
SUBSCRIPTION_META_KEY = "io.modelcontextprotocol/subscriptionId"

INVALID_PARAMS = -32602
NOT_FOUND = -32011
FORBIDDEN = -32012
RESOURCE_EXHAUSTED = -32013
UNSUPPORTED = -32014
CALLBACK_ENDPOINT_ERROR = -32015


class EventsListParams(types.RequestParams):
    cursor: str | None = None


class DeliverySpec(BaseModel):
    model_config = ConfigDict(extra="allow")
    mode: str | None = None
    url: str | None = None
    secret: str | None = None


class SubscribeParams(types.RequestParams):
    name: str
    arguments: dict[str, Any] | None = None
    delivery: DeliverySpec | None = None
    cursor: str | None = None
    max_age_ms: int | None = None
    ttl_ms: int | None = None


class UnsubscribeParams(types.RequestParams):
    name: str
    arguments: dict[str, Any] | None = None
    delivery: DeliverySpec | None = None


class PollParams(types.RequestParams):
    name: str
    arguments: dict[str, Any] | None = None
    cursor: str | None = None
    max_age_ms: int | None = None
    max_events: int | None = None
    timeout_ms: int | None = None


class StreamParams(types.RequestParams):
    name: str
    arguments: dict[str, Any] | None = None
    cursor: str | None = None
    max_age_ms: int | None = None


def error(code: int, message: str, data: Any = None) -> MCPError:
    return MCPError(code=code, message=message, data=data)


class EventsExtension(Extension):
    identifier = EVENTS_EXTENSION_ID

    def __init__(self, state: State) -> None:
        self.state = state

    def settings(self) -> dict[str, Any]:
        return dict(self.state.capabilities.events)

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("events/list", EventsListParams, self.list_events),
            MethodBinding("events/subscribe", SubscribeParams, self.subscribe),
            MethodBinding("events/unsubscribe", UnsubscribeParams, self.unsubscribe),
            MethodBinding("events/poll", PollParams, self.poll),
            MethodBinding("events/stream", StreamParams, self.stream),
        ]

    # -- shared checks -----------------------------------------------------

    def _event_type(self, name: str, mode: str) -> dict[str, Any]:
        event_type = self.state.catalog.get(name)
        if event_type is None:
            raise error(NOT_FOUND, f"Unknown event type {name!r}", {"kind": "event", "name": name})
        if mode not in event_type.get("delivery", []):
            raise error(
                UNSUPPORTED,
                f"Event type {name!r} does not offer {mode} delivery",
                {"feature": "deliveryMode", "value": mode},
            )
        return event_type

    @staticmethod
    def _arguments(event_type: dict[str, Any], arguments: dict[str, Any] | None) -> dict[str, Any]:
        arguments = arguments or {}
        problems = loose_validate(arguments, event_type.get("inputSchema") or {})
        if problems:
            raise error(
                INVALID_PARAMS, "Invalid arguments: " + "; ".join(problems), {"problems": problems}
            )
        return arguments

    def _check_auth(self, ctx: ServerRequestContext[Any, Any]) -> None:
        if self.state.config.require_auth and not requestinfo.is_authenticated(ctx):
            raise error(FORBIDDEN, "Authentication required", {"reason": "unauthenticated"})

    # -- events/list -------------------------------------------------------

    async def list_events(
        self, ctx: ServerRequestContext[Any, Any], params: EventsListParams
    ) -> dict[str, Any]:
        self.state.record(
            "eventsList", {"cursor": params.cursor, "principal": requestinfo.principal(ctx)}
        )
        try:
            page, next_cursor = self.state.catalog.page(
                params.cursor, self.state.config.events_page_size
            )
        except ValueError as exc:
            raise error(INVALID_PARAMS, str(exc)) from None
        result: dict[str, Any] = {"events": page}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return result

    # -- events/subscribe (webhook; also the refresh) ----------------------

    async def subscribe(
        self, ctx: ServerRequestContext[Any, Any], params: SubscribeParams
    ) -> dict[str, Any]:
        state = self.state
        who = requestinfo.principal(ctx)
        delivery = params.delivery or DeliverySpec()
        state.record(
            "subscribe",
            {
                "principal": who,
                "name": params.name,
                "arguments": params.arguments,
                "delivery": {
                    "mode": delivery.mode,
                    "url": delivery.url,
                    "secretFingerprint": secret_fingerprint(delivery.secret)
                    if delivery.secret
                    else None,
                },
                "cursor": params.cursor,
                "maxAgeMs": params.max_age_ms,
                "ttlMs": params.ttl_ms if "ttl_ms" in params.model_fields_set else "absent",
                "meta": requestinfo.raw_meta(ctx),
            },
        )
        self._check_auth(ctx)
        if delivery.mode not in (None, "webhook"):
            raise error(
                UNSUPPORTED,
                "events/subscribe serves webhook delivery only",
                {"feature": "deliveryMode", "value": delivery.mode},
            )
        event_type = self._event_type(params.name, "webhook")
        arguments = self._arguments(event_type, params.arguments)
        if not delivery.url:
            raise error(INVALID_PARAMS, "delivery.url is required")
        try:
            validate_callback_url(
                delivery.url, allow_http_loopback=state.config.allow_http_callbacks
            )
            validate_secret(delivery.secret)
        except ValueError as exc:
            raise error(INVALID_PARAMS, str(exc)) from None
        secret = delivery.secret
        assert secret is not None
        ttl_given = "ttl_ms" in params.model_fields_set
        sub_id = subscription_id(who, delivery.url, params.name, arguments)

        async with state.subscriptions.lock(sub_id):
            existing = state.subscriptions.by_id.get(sub_id)
            if existing is not None and existing.expired():
                state.delivery.stop_worker(existing)
                state.subscriptions.pop(sub_id)
                existing = None
            if existing is not None:
                return self._refresh(existing, params, secret, ttl_given)
            if state.subscriptions.count_for(who) >= state.config.max_subscriptions_per_principal:
                raise error(
                    RESOURCE_EXHAUSTED,
                    "Too many subscriptions",
                    {"limit": "subscriptions", "max": state.config.max_subscriptions_per_principal},
                )
            if (who, delivery.url) not in state.subscriptions.verified:
                try:
                    await state.delivery.verify_endpoint(
                        sub_id=sub_id, url=delivery.url, secret=secret
                    )
                except CallbackFailure as failure:
                    raise error(
                        CALLBACK_ENDPOINT_ERROR,
                        "Callback endpoint failed verification",
                        {"reason": failure.reason},
                    ) from None
                state.subscriptions.verified.add((who, delivery.url))
            start, truncated = state.log.resolve(params.name, params.cursor)
            sub = Subscription(
                id=sub_id,
                principal=who,
                url=delivery.url,
                name=params.name,
                arguments=arguments,
                secret=secret,
                refresh_before=grant_expiry(
                    state.config, ttl_given=ttl_given, ttl_ms=params.ttl_ms
                ),
                watermark=start,
            )
            state.subscriptions.by_id[sub_id] = sub
            self._replay(sub, event_type, start, params.max_age_ms)
            return {
                "id": sub.id,
                "refreshBefore": iso(sub.refresh_before) if sub.refresh_before else None,
                "cursor": str(sub.watermark),
                "truncated": truncated,
            }

    def _refresh(
        self, sub: Subscription, params: SubscribeParams, secret: str, ttl_given: bool
    ) -> dict[str, Any]:
        state = self.state
        status_before = sub.delivery_status()
        if secret != sub.secret:
            # Rotation: sign with both secrets for a grace period.
            sub.old_secret, sub.secret = sub.secret, secret
            sub.old_secret_until = time.time() + state.config.rotation_grace_ms / 1000
        sub.refresh_before = grant_expiry(state.config, ttl_given=ttl_given, ttl_ms=params.ttl_ms)
        sub.refreshes += 1
        truncated = False
        if sub.status != "active":
            # Reactivate; the client's cursor is the replay point for what was dropped.
            sub.status = "active"
            sub.consecutive_failures = 0
            state.delivery.drain(sub)
            if params.cursor is not None:
                start, truncated = state.log.resolve(sub.name, params.cursor)
            else:
                start = sub.watermark
            sub.watermark = start
            event_type = state.catalog.get(sub.name) or {}
            self._replay(sub, event_type, start, params.max_age_ms)
        return {
            "id": sub.id,
            "refreshBefore": iso(sub.refresh_before) if sub.refresh_before else None,
            "cursor": str(sub.watermark),
            "truncated": truncated,
            "deliveryStatus": status_before,
        }

    def _replay(
        self, sub: Subscription, event_type: dict[str, Any], start: int, max_age_ms: int | None
    ) -> None:
        pending = [
            occ
            for occ in self.state.log.after(sub.name, start, max_age_ms)
            if matches_filter(event_type, sub.arguments, occ.tags)
        ]
        if not pending:
            sub.watermark = self.state.log.head(sub.name)
            return
        for occ in pending:
            self.state.delivery.enqueue(sub, Outgoing("event", occ.event_id, occ.wire(), occ.seq))

    # -- events/unsubscribe ------------------------------------------------

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any, Any], params: UnsubscribeParams
    ) -> dict[str, Any]:
        state = self.state
        who = requestinfo.principal(ctx)
        url = params.delivery.url if params.delivery else None
        state.record(
            "unsubscribe",
            {
                "principal": who,
                "name": params.name,
                "arguments": params.arguments,
                "url": url,
                "delivery": params.delivery.model_dump(exclude_none=True)
                if params.delivery
                else None,
            },
        )
        self._check_auth(ctx)
        if not url:
            raise error(INVALID_PARAMS, "delivery.url is required")
        if state.config.dialect == dialect.CHATGPT:
            if params.delivery is None or params.delivery.mode != "webhook":
                raise error(INVALID_PARAMS, "delivery.mode must be webhook with a url")
            if state.catalog.get(params.name) is None:
                raise error(INVALID_PARAMS, "Unknown event name")
        sub_id = subscription_id(who, url, params.name, params.arguments or {})
        async with state.subscriptions.lock(sub_id):
            sub = state.subscriptions.pop(sub_id)
            if sub is None or sub.expired():
                if sub is not None:
                    state.delivery.stop_worker(sub)
                raise error(NOT_FOUND, "No such subscription", {"kind": "subscription"})
            state.delivery.stop_worker(sub)
        return {}

    # -- events/poll -------------------------------------------------------

    async def poll(self, ctx: ServerRequestContext[Any, Any], params: PollParams) -> dict[str, Any]:
        state = self.state
        state.record(
            "poll",
            {
                "principal": requestinfo.principal(ctx),
                "name": params.name,
                "arguments": params.arguments,
                "cursor": params.cursor,
                "maxAgeMs": params.max_age_ms,
                "maxEvents": params.max_events,
                "timeoutMs": params.timeout_ms,
            },
        )
        event_type = self._event_type(params.name, "poll")
        arguments = self._arguments(event_type, params.arguments)
        reply: dict[str, Any] = {"events": [], "truncated": False, "hasMore": False}
        reply["nextPollMs"] = state.config.poll_next_ms
        if params.cursor is None:
            reply["cursor"] = str(state.log.head(params.name))
            return reply
        start, truncated = state.log.resolve(params.name, params.cursor)
        limit = max(
            1, min(params.max_events or state.config.poll_max_events, state.config.poll_max_events)
        )
        wait_ms = min(max(params.timeout_ms or 0, 0), state.config.max_poll_timeout_ms)
        deadline = time.monotonic() + wait_ms / 1000
        while True:
            head = state.log.head(params.name)
            pending = [
                occ
                for occ in state.log.after(params.name, start, params.max_age_ms)
                if matches_filter(event_type, arguments, occ.tags)
            ]
            remaining = deadline - time.monotonic()
            if pending or remaining <= 0:
                break
            await state.log.wait_changed(remaining)
        batch = pending[:limit]
        has_more = len(pending) > limit
        reply.update(
            events=[occ.wire() for occ in batch],
            cursor=str(batch[-1].seq if has_more else head),
            truncated=truncated,
            hasMore=has_more,
        )
        return reply

    # -- events/stream -----------------------------------------------------

    async def stream(
        self, ctx: ServerRequestContext[Any, Any], params: StreamParams
    ) -> dict[str, Any]:
        state = self.state
        who = requestinfo.principal(ctx)
        state.record(
            "stream",
            {
                "principal": who,
                "name": params.name,
                "arguments": params.arguments,
                "cursor": params.cursor,
            },
        )
        event_type = self._event_type(params.name, "push")
        arguments = self._arguments(event_type, params.arguments)
        stream = state.streams.register(
            request_id=ctx.request_id, principal=who, name=params.name, arguments=arguments
        )
        try:
            return await self._serve_stream(ctx, stream, event_type, params)
        finally:
            state.streams.unregister(stream)

    async def _serve_stream(
        self,
        ctx: ServerRequestContext[Any, Any],
        stream: OpenStream,
        event_type: dict[str, Any],
        params: StreamParams,
    ) -> dict[str, Any]:
        state = self.state
        name = params.name

        async def send(method: str, payload: dict[str, Any]) -> None:
            body = {**payload, "_meta": {SUBSCRIPTION_META_KEY: ctx.request_id}}
            await ctx.session.send_notification(
                WireNotification(method=f"notifications/events/{method}", params=body),  # type: ignore[arg-type]
                related_request_id=ctx.request_id,
            )

        start, truncated = state.log.resolve(name, params.cursor)
        replay = [
            occ
            for occ in state.log.after(name, start, params.max_age_ms)
            if matches_filter(event_type, stream.arguments, occ.tags)
        ]
        await send(
            "active",
            {"cursor": str(start if replay else state.log.head(name)), "truncated": truncated},
        )
        for occ in replay:
            await send("event", occ.wire())
        while True:
            item: StreamItem | None = None
            with anyio.move_on_after(state.config.heartbeat_ms / 1000):
                item = await stream.queue.get()
            if item is None:
                await send("heartbeat", {"cursor": str(state.log.head(name))})
                continue
            if item.kind == "event":
                live: Occurrence = item.payload["occurrence"]
                if live.seq > start and matches_filter(event_type, stream.arguments, live.tags):
                    await send("event", live.wire())
            elif item.kind == "gap":
                while not stream.queue.empty():
                    stream.queue.get_nowait()
                await send("active", {"cursor": str(state.log.head(name)), "truncated": True})
            elif item.kind == "error":
                await send("error", {"error": item.payload["error"]})
            elif item.kind == "list_changed":
                await send("list_changed", {})
            elif item.kind == "terminated":
                await send("terminated", {"error": item.payload["error"]})
                return {"_meta": {}}
            elif item.kind == "drop":
                # Closed without `terminated`: the client should reconnect with its cursor.
                return {"_meta": {}}
