"""`subscriptions/listen` with the events extension's `eventsListChanged` filter.

The SDK's `ListenHandler` honours only the core kinds (tools, prompts,
resources). SEP-3415 §"Dynamic event types" adds `eventsListChanged`: the
server echoes it in `notifications/subscriptions/acknowledged` when it will
honour it (it declared `listChanged: true`) and then sends
`notifications/events/list_changed` on that stream, stamped with the listen
request's id. Core kinds still come from the SDK's bus, as before.

`Config.listen_acks_events = False` makes the server leave the field out of
its acknowledgement (a server that will not honour it), so clients can be
tested falling back to re-listing.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import SubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import event_matches, event_to_notification
from mcp_types import (
    INVALID_REQUEST,
    SubscriptionFilter,
    SubscriptionsAcknowledgedNotification,
    SubscriptionsAcknowledgedNotificationParams,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
)

from refserver import requestinfo
from refserver.state import State
from refserver.streams import WireNotification

SUBSCRIPTION_META_KEY = "io.modelcontextprotocol/subscriptionId"
EVENTS_LIST_CHANGED = "eventsListChanged"


class EventsListChanged:
    """The one item a listen stream gets besides the SDK's core events."""


class ListenHandler:
    def __init__(self, state: State, bus: SubscriptionBus) -> None:
        self.state = state
        self.bus = bus

    def _honoured(self, requested: SubscriptionFilter) -> SubscriptionFilter:
        core: dict[str, Any] = {
            "toolsListChanged": True if requested.tools_list_changed else None,
            "promptsListChanged": True if requested.prompts_list_changed else None,
            "resourcesListChanged": True if requested.resources_list_changed else None,
            "resourceSubscriptions": list(requested.resource_subscriptions)
            if requested.resource_subscriptions
            else None,
        }
        honoured = {k: v for k, v in core.items() if v is not None}
        asked = bool((requested.model_extra or {}).get(EVENTS_LIST_CHANGED))
        declared = bool(self.state.capabilities.events.get("listChanged"))
        if asked and declared and self.state.config.listen_acks_events:
            honoured[EVENTS_LIST_CHANGED] = True
        return SubscriptionFilter.model_validate(honoured)

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        listen_id = ctx.request_id
        if listen_id is None:
            raise MCPError(INVALID_REQUEST, "subscriptions/listen requires a request id")
        honoured = self._honoured(params.notifications)
        uris = frozenset(honoured.resource_subscriptions or ())
        wants_events = bool((honoured.model_extra or {}).get(EVENTS_LIST_CHANGED))
        meta: dict[str, Any] = {SUBSCRIPTION_META_KEY: listen_id}
        self.state.record(
            "listen",
            {
                "principal": requestinfo.principal(ctx),
                "requestId": listen_id,
                "notifications": params.notifications.model_dump(
                    by_alias=True, mode="json", exclude_none=True
                ),
                "honoured": honoured.model_dump(by_alias=True, mode="json", exclude_none=True),
            },
        )
        send, receive = anyio.create_memory_object_stream[Any](1024)

        def deliver(event: Any) -> None:
            if event_matches(honoured, uris, event):
                try:
                    send.send_nowait(event)
                except (anyio.WouldBlock, anyio.ClosedResourceError):
                    send.close()

        unsubscribe = self.bus.subscribe(deliver)
        if wants_events:
            self.state.listens[listen_id] = send
        try:
            await ctx.session.send_notification(
                SubscriptionsAcknowledgedNotification(
                    params=SubscriptionsAcknowledgedNotificationParams(
                        notifications=honoured, _meta=meta
                    )
                ),
                related_request_id=listen_id,
            )
            async for item in receive:
                if isinstance(item, EventsListChanged):
                    notification: Any = WireNotification(
                        method="notifications/events/list_changed", params={"_meta": meta}
                    )
                else:
                    notification = event_to_notification(item, meta)
                await ctx.session.send_notification(notification, related_request_id=listen_id)
        finally:
            unsubscribe()
            self.state.listens.pop(listen_id, None)
            send.close()
            receive.close()
        return SubscriptionsListenResult(_meta=meta)


def notify_listens(state: State) -> int:
    """`notifications/events/list_changed` on every listen stream that asked for it."""
    sent = 0
    for listen_id, send in list(state.listens.items()):
        try:
            send.send_nowait(EventsListChanged())
            sent += 1
        except (anyio.WouldBlock, anyio.ClosedResourceError):
            state.listens.pop(listen_id, None)
    return sent
