"""Control-side actions on events: emit, gap, terminate, list_changed.

Kept apart from the JSON-RPC handlers in `refserver.events` because these
are driven by the control surface, yet they follow the same matching and
enqueueing rules: an emit reaches exactly the webhook subscriptions and open
streams whose filter arguments match, in log order.
"""

from __future__ import annotations

from typing import Any

import anyio

from refserver import dialect
from refserver.catalog import matches_filter
from refserver.delivery import Outgoing, SigningMode, envelope_id
from refserver.listen import notify_listens
from refserver.state import State
from refserver.streams import StreamItem, WireNotification
from refserver.subscriptions import Subscription


def emit(
    state: State,
    *,
    name: str,
    data: Any,
    tags: dict[str, Any] | None = None,
    event_id: str | None = None,
    timestamp: str | None = None,
    signing: SigningMode = "valid",
) -> dict[str, Any]:
    """Append to the log and fan out to matching webhook subscriptions and streams."""
    event_type = state.catalog.get(name)
    if event_type is None:
        raise KeyError(name)
    occ = state.log.append(name, data, tags=tags, event_id=event_id, timestamp=timestamp)
    matched: list[str] = []
    for sub in state.subscriptions.for_type(name):
        if sub.status != "active":
            continue
        if matches_filter(event_type, sub.arguments, occ.tags):
            state.delivery.enqueue(
                sub, Outgoing("event", occ.event_id, occ.wire(), occ.seq, signing)
            )
            matched.append(sub.id)
        elif sub.queue.empty() and not sub.inflight:
            sub.watermark = occ.seq
    # Only to the streams whose arguments match (each handler checks again):
    # a thousand open streams must not all wake up for every event.
    streams = 0
    filter_keys = tuple(event_type.get("filterKeys", []))
    for stream in state.streams.candidates(name, filter_keys, occ.tags):
        if matches_filter(event_type, stream.arguments, occ.tags):
            stream.queue.put_nowait(StreamItem("event", {"occurrence": occ}))
            streams += 1
    return {
        "eventId": occ.event_id,
        "name": name,
        "cursor": occ.cursor,
        "timestamp": occ.timestamp,
        # When it entered the log (epoch seconds, full precision): where a
        # latency measurement starts (bench/push_streams.py).
        "emittedAt": occ.emitted_at,
        "subscriptions": matched,
        "streams": streams,
    }


def send_gap(state: State, sub: Subscription) -> dict[str, Any]:
    """Skip whatever is pending and tell the receiver with a `gap` envelope
    (the ChatGPT dialect has none: the events are just lost)."""
    state.delivery.drain(sub)
    head = state.log.head(sub.name)
    sub.watermark = head
    body = {"type": "gap", "cursor": str(head)}
    if not dialect.sends_envelopes(state.config.dialect):
        return {}
    state.delivery.enqueue(sub, Outgoing("gap", envelope_id("gap"), body))
    return body


def terminate(state: State, sub: Subscription, err: dict[str, Any]) -> dict[str, Any]:
    """End a subscription server-side and send the `terminated` envelope."""
    state.subscriptions.pop(sub.id)
    state.delivery.drain(sub)
    body = {"type": "terminated", "error": dialect.error_object(state.config.dialect, err)}
    if not dialect.sends_envelopes(state.config.dialect):
        return {}  # the subscription just ends, silently
    state.delivery.enqueue(sub, Outgoing("terminated", envelope_id("terminated"), body))
    return body


async def notify_list_changed(state: State) -> int:
    """Tell listen streams (2026-07-28), legacy sessions (standalone stream)
    and open event streams."""
    sent = notify_listens(state) + state.streams.broadcast(StreamItem("list_changed"))
    for session_id, session in list(state.legacy_sessions.items()):
        try:
            with anyio.fail_after(2):
                await session.send_notification(
                    WireNotification(method="notifications/events/list_changed", params={})
                )
            sent += 1
        except Exception:
            state.legacy_sessions.pop(session_id, None)
    return sent
