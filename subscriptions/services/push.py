"""Push delivery: one ``events/stream`` per push subscription, held by the
session worker (kind ``push``; docs/events-client.md §9; cases 40-45).

- Wanted: every push subscription that is running and not paused. Creating,
  pausing, resuming, revoking and consent changes announce the change
  (``lifecycle.delivery_start``/``delivery_stop``), so the worker opens or
  closes the stream within a second; its reconcile is the fallback.
- Each frame is taken in before the next is read (``intake``): events are
  stored once per ``eventId`` and forwarded with their cursor in one
  transaction; ``active`` and ``heartbeat`` persist the cursor; ``active``
  with ``truncated`` flags a gap. A reconnect sends the last stored cursor,
  so a dropped stream or a killed worker loses nothing and the dedup key
  keeps replays from being forwarded twice.
- Once the session is open and right before ``events/stream`` is sent,
  ``consent.enforce`` is asked whether the user's ``events`` grant is still
  live and the server not blocked (the grant was read before the session
  opened). Refused: nothing is sent and the subscription ends
  (``consent_not_live``); consent that cannot be read: nothing is sent, the
  subscription says so (``last_error``) and the worker tries again after its
  backoff.
- Silence longer than PUSH_IDLE_TIMEOUT (2x the 30 s heartbeat) aborts the
  stream and the worker reconnects; so does a close without ``terminated``.
  ``error`` frames are logged and the stream kept; ``terminated`` and
  terminal JSON-RPC errors end the subscription (``subscription.updated``).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from consent.enforce import CONSENT_UNAVAILABLE, OutboundRefused, Verdict, outbound_check
from consent.models import Scope
from consent.selectors import grant_is_live
from subscriptions.models import Mode, Subscription, SubscriptionStatus
from subscriptions.services.common import status_changed, subscription_broadcast
from subscriptions.services.intake import SERVER, Arrival, arrivals_take_in, events_take_in
from subscriptions.services.lifecycle import subscription_revoke
from subscriptions.services.modes import PUSH, delivery_mode_fallback
from subscriptions.services.remote import reaction_for, target_for
from switchboard.actors import Actor
from switchboard.mcp import McpCallError, McpTarget
from switchboard.queue import enqueue
from switchboard.services.server_dialects import server_events_error_seen
from switchboard.sessions.batch import Batched
from switchboard.sessions.db import in_db_thread
from switchboard.sessions.registry import HeldKind, HoldOutcome
from switchboard.sessions.report import StreamReport

log = logging.getLogger(__name__)

SYSTEM = Actor.system("subscriptions")
STREAMING = (
    SubscriptionStatus.PENDING,
    SubscriptionStatus.ACTIVE,
    SubscriptionStatus.SUSPENDED,
    SubscriptionStatus.EXPIRED,
)


def _streaming():
    return Subscription.objects.filter(mode=Mode.PUSH, status__in=STREAMING, paused_at__isnull=True)


def push_subscriptions_wanted() -> list[str]:
    return list(_streaming().values_list("id", flat=True))


def push_subscription_wanted(subscription_id: str) -> bool:
    return _streaming().filter(pk=subscription_id).exists()


@dataclass(frozen=True)
class Opening:
    target: McpTarget
    params: dict[str, Any]
    grant_id: str  # the events grant read before the session opens


def _opening(subscription_id: str) -> Opening | None:
    sub = _streaming().select_related("server", "user").filter(pk=subscription_id).first()
    if sub is None or sub.server.deleted_at is not None:
        return None
    grant = grant_is_live(
        user=sub.user_id, server_id=sub.server_id, scope=Scope.EVENTS, event_type=sub.event_name
    )
    if grant is None:
        subscription_revoke(subscription=sub, actor=SYSTEM, reason="consent_not_live")
        return None
    params = {
        "name": sub.event_name,
        "arguments": sub.arguments,
        "cursor": sub.cursor,
        "max_age_ms": sub.max_age_ms if sub.cursor is not None else None,
    }
    return Opening(target_for(user=sub.user, server=sub.server), params, grant.pk)


def _stream_refused(subscription_id: str, verdict: Verdict) -> None:
    """``consent.enforce`` refused the stream once its session was open:
    nothing was sent. Consent gone or the server blocked ends the
    subscription; consent that could not be read is shown on it, and the
    worker tries again."""
    sub = Subscription.objects.filter(pk=subscription_id).first()
    if sub is None:
        return
    if verdict.reason != CONSENT_UNAVAILABLE:
        subscription_revoke(subscription=sub, actor=SYSTEM, reason="consent_not_live")
        return
    Subscription.objects.filter(pk=sub.pk).update(
        last_error=verdict.reason, last_error_message=verdict.message[:500]
    )
    subscription_broadcast(sub)


def push_frame_take(subscription_id: str, kind: str, params: dict[str, Any]) -> HoldOutcome | None:
    """One frame of the stream, persisted before the next is read. Returns
    "done" when the subscription ended."""
    body = {k: v for k, v in params.items() if k != "_meta"}
    if kind == "event":
        events_take_in(
            subscription_id=subscription_id,
            occurrences=[body],
            cursor=body.get("cursor"),
            cursor_given="cursor" in body,
            source="push",
        )
    elif kind in ("active", "heartbeat"):
        events_take_in(
            subscription_id=subscription_id,
            occurrences=[],
            cursor=body.get("cursor"),
            cursor_given="cursor" in body,
            truncated=kind == "active" and bool(body.get("truncated")),
            source="push_truncated",
        )
    elif kind == "error":
        log.warning("push stream %s reported an error: %s", subscription_id, body.get("error"))
    elif kind == "terminated":
        nested = body.get("error")
        error: dict[str, Any] = nested if isinstance(nested, dict) else body
        exc = McpCallError(
            "mcp_error",
            str(error.get("message") or "terminated")[:200],
            code=error.get("code") if isinstance(error.get("code"), int) else None,
            data=error.get("data"),
        )
        push_ended(subscription_id, exc, terminated=True)
        return "done"
    elif kind == "list_changed":
        # Sketch-era servers announce catalogue changes here; list again.
        sub = Subscription.objects.filter(pk=subscription_id).only("server_id").first()
        if sub is not None:
            enqueue("switchboard.sync_server", sub.server_id)
    return None


@dataclass(frozen=True)
class Frame:
    subscription_id: str
    kind: str
    params: dict[str, Any]


def push_frames_take(frames: list[Frame]) -> list[HoldOutcome | None]:
    """``push_frame_take`` for frames of many streams that arrived together
    (``Batched``): one transaction; events and heartbeats of running
    subscriptions in a few statements for the lot (``arrivals_take_in``),
    anything else frame by frame as before."""
    arrivals: dict[int, Arrival] = {}  # frame index → its arrival
    claimed: set[str] = set()
    for index, frame in enumerate(frames):
        quick = frame.kind in ("event", "heartbeat") or (
            frame.kind == "active" and not frame.params.get("truncated")
        )
        if quick and frame.subscription_id not in claimed:
            claimed.add(frame.subscription_id)
            body = {k: v for k, v in frame.params.items() if k != "_meta"}
            arrivals[index] = Arrival(
                subscription_id=frame.subscription_id,
                occurrence=body if frame.kind == "event" else None,
                cursor=body.get("cursor"),
                cursor_given="cursor" in body,
            )
    with transaction.atomic():
        taken = arrivals_take_in(list(arrivals.values()))
        return [
            None
            if index in arrivals and frame.subscription_id in taken
            else push_frame_take(frame.subscription_id, frame.kind, frame.params)
            for index, frame in enumerate(frames)
        ]


def push_ended(subscription_id: str, exc: McpCallError, *, terminated: bool = False) -> bool:
    """The server ended the stream with an error (a ``terminated`` frame or a
    JSON-RPC error answering ``events/stream``). True when the subscription
    ended (or moved to another mode); False: reconnect with backoff."""
    with transaction.atomic():
        sub = (
            Subscription.objects.select_for_update(no_key=True, of=("self",))
            .select_related("server", "user")
            .filter(pk=subscription_id)
            .first()
        )
        if sub is None or sub.status not in STREAMING:
            return True
        if exc.code is not None:
            server_events_error_seen(server=sub.server, code=exc.code, method=exc.method)
        reaction = reaction_for(exc, running=True, dialect=sub.server.events_error_dialect)
        # A `terminated` frame whose error reads as transient still ended it.
        sub.last_error = (
            "terminated" if terminated and reaction.outcome == "retry" else reaction.error
        )
        sub.last_error_message = (
            f"The server ended it: {exc.message}" if terminated else reaction.message
        )[:500]
        if reaction.error == "unsupported_delivery_mode" and not terminated:
            sub.save(update_fields=["last_error", "last_error_message", "updated_at"])
            delivery_mode_fallback(subscription=sub, actor=SYSTEM)
            return True
        if not terminated and reaction.outcome not in ("failed", "terminated"):
            sub.refresh_failures += 1
            sub.save(update_fields=["last_error", "last_error_message", "refresh_failures"])
            return False
        previous = sub.status
        sub.status = (
            SubscriptionStatus.FAILED
            if previous == SubscriptionStatus.PENDING and reaction.outcome == "failed"
            else SubscriptionStatus.TERMINATED
        )
        sub.ended_at = timezone.now()
        sub.save()
        status_changed(sub, previous=previous, actor=SERVER, reason=sub.last_error)
        if reaction.error == "event_not_found":
            enqueue("switchboard.sync_server", sub.server_id)
        return True


_batchers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Batched] = (
    weakref.WeakKeyDictionary()
)


def _intake() -> Batched[Frame, HoldOutcome | None]:
    """The worker's one frame batcher (per event loop: tests run several)."""
    loop = asyncio.get_running_loop()
    if loop not in _batchers:
        _batchers[loop] = Batched(
            push_frames_take,
            max_items=settings.PUSH_INTAKE_BATCH,
            concurrency=settings.PUSH_INTAKE_CONCURRENCY,
        )
    return _batchers[loop]


async def push_hold(subscription_id: str, report: StreamReport) -> HoldOutcome:
    opening = await in_db_thread(_opening)(subscription_id)
    if opening is None:
        return "done"
    take = _intake()
    try:
        async with report.sessions.borrow(opening.target) as session:
            # The grant was read before the session opened (round trips a
            # revoke or a block may commit during): asked again right before
            # the stream is requested.
            verdict = await in_db_thread(outbound_check)(grant_id=opening.grant_id)
            if not verdict.allowed:
                await in_db_thread(_stream_refused)(subscription_id, verdict)
                if verdict.reason == CONSENT_UNAVAILABLE:
                    raise OutboundRefused(verdict)  # the worker reconnects after its backoff
                return "done"
            async with session.stream(
                **opening.params, idle_timeout=settings.PUSH_IDLE_TIMEOUT
            ) as stream:
                async for message in stream:
                    report.frame()
                    frame = Frame(subscription_id, message.kind, message.params)
                    if await take(frame) == "done":
                        return "done"
                    if message.kind == "active":
                        await report.connected()
    except McpCallError as exc:
        if exc.code is not None and await in_db_thread(push_ended)(subscription_id, exc):
            return "done"
        raise
    # Closed without `terminated` (case 45): open it again from the cursor.
    return "reconnect"


def push_health_changed(subscription_id: str) -> None:
    """The pages showing it re-read the stream's state."""
    sub = Subscription.objects.filter(pk=subscription_id).first()
    if sub is not None:
        subscription_broadcast(sub)


PUSH_KIND = HeldKind(
    name=PUSH,
    wanted=push_subscriptions_wanted,
    still_wanted=push_subscription_wanted,
    hold=push_hold,
    health_changed=push_health_changed,
)
