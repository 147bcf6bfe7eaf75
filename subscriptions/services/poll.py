"""Poll delivery: ``events/poll`` on the server's schedule (docs/events-client.md §9; cases 32-39).

1. Beat runs ``subscriptions_poll_due`` every BEAT_TICK: it reads due rows
   through the ``next_poll_at`` index (cost grows with due work, not with
   all subscriptions), moves each due time on by the lease so the next tick
   does not dispatch it again, and enqueues one task per row.
2. The task claims the row (``refresh_claimed_until``: one poll at a time
   per subscription, single flight), checks consent and pause, and polls
   outside any transaction with the stored cursor and ``maxEvents``. Each
   answer is taken in with its cursor in one transaction (``intake``);
   ``hasMore`` polls again at once (up to SUBSCRIPTION_POLL_DRAIN_MAX pages a
   run, a guard against an endless ``hasMore``).
3. The next poll is due after ``nextPollMs`` clamped to
   [SUBSCRIPTION_POLL_FLOOR, SUBSCRIPTION_POLL_CEILING] (a legacy
   ``nextPollSeconds`` counts; none: SUBSCRIPTION_POLL_DEFAULT). Waits
   shorter than SUBSCRIPTION_COUNTDOWN_MAX are also handed to the broker as
   a countdown, so a 1 s cadence does not wait for beat's tick.
4. Errors read as for webhook subscriptions (``remote.reaction_for``):
   terminal ones end it (``subscription.updated``), -32014 deliveryMode
   moves it to the next mode the event type offers (case 47), the rest back
   off and poll again.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from consent.enforce import CONSENT_UNAVAILABLE, OutboundRefused
from consent.models import Scope
from consent.selectors import grant_is_live
from subscriptions.models import Mode, Subscription, SubscriptionStatus
from subscriptions.services.common import (
    claim_lease,
    countdown_take,
    due_again_soon,
    retry_backoff,
    status_changed,
)
from subscriptions.services.intake import events_take_in
from subscriptions.services.lifecycle import subscription_revoke
from subscriptions.services.modes import delivery_mode_fallback
from subscriptions.services.remote import (
    Reaction,
    reaction_for,
    refusal,
    remote_poll,
    target_for,
)
from switchboard.actors import Actor
from switchboard.mcp import McpCallError
from switchboard.queue import enqueue, enqueue_each
from switchboard.services.server_dialects import server_events_error_seen

log = logging.getLogger(__name__)

SYSTEM = Actor.system("subscriptions")
# Statuses in which a poll subscription is polled.
POLLING = (
    SubscriptionStatus.PENDING,
    SubscriptionStatus.ACTIVE,
    SubscriptionStatus.SUSPENDED,
    SubscriptionStatus.EXPIRED,
)


# --- scheduling ----------------------------------------------------------------


def subscriptions_due_for_poll(*, now: datetime, limit: int = 500) -> list[str]:
    return list(
        Subscription.objects.filter(next_poll_at__lte=now)
        .order_by("next_poll_at")
        .values_list("id", flat=True)[:limit]
    )


def subscriptions_poll_due(*, batch: int = 500, max_batches: int = 20) -> int:
    """Beat: one task per due poll subscription (see the module docstring).

    A batch is two statements whatever its size: the due ids, locked with
    SKIP LOCKED (a second beat or a countdown taking the same rows skips
    them), and one UPDATE moving their due time on by the lease; the tasks
    are sent after commit."""
    dispatched = 0
    for _ in range(max_batches):
        now = timezone.now()
        with transaction.atomic():
            ids = list(
                Subscription.objects.select_for_update(no_key=True, skip_locked=True)
                .filter(next_poll_at__lte=now)
                .order_by("next_poll_at")
                .values_list("id", flat=True)[:batch]
            )
            if ids:
                Subscription.objects.filter(pk__in=ids).update(next_poll_at=now + claim_lease())
                enqueue_each("subscriptions.poll_subscription", [(i,) for i in ids])
        dispatched += len(ids)
        if len(ids) < batch:
            break
    return dispatched


def subscription_poll_when_due(*, subscription_id: str, due: str | None = None) -> str:
    """A countdown's poll, if it is still the one it was sent for
    (``common.countdown_take``)."""
    if not countdown_take(subscription_id=subscription_id, field="next_poll_at", due=due):
        return "not_due"
    outcome = subscription_poll(subscription_id=subscription_id)
    due_again_soon(subscription_id, field="next_poll_at", taken=outcome == "busy")
    return outcome


def _poll_at(sub: Subscription, wait_seconds: float) -> None:
    """Set the next due time (the row is the truth) and, when it is soon,
    a countdown task for exactly that due time too."""
    due = timezone.now() + timedelta(seconds=wait_seconds)
    scheduled = (
        Subscription.objects.filter(pk=sub.pk, mode=Mode.POLL, status__in=POLLING)
        .filter(paused_at__isnull=True)
        .update(next_poll_at=due)
    )
    if scheduled and wait_seconds <= settings.SUBSCRIPTION_COUNTDOWN_MAX:
        enqueue(
            "subscriptions.poll_when_due",
            sub.pk,
            due.isoformat(),
            countdown=max(wait_seconds, 0.0),
        )


def next_poll_wait(next_poll_ms: int | None) -> float:
    """Seconds until the next poll: the server's wish, clamped (case 32)."""
    if next_poll_ms is None:
        return settings.SUBSCRIPTION_POLL_DEFAULT
    return min(
        max(next_poll_ms / 1000, settings.SUBSCRIPTION_POLL_FLOOR),
        settings.SUBSCRIPTION_POLL_CEILING,
    )


# --- one run -------------------------------------------------------------------


def _claim(subscription_id: str, now: datetime) -> bool:
    return (
        Subscription.objects.filter(pk=subscription_id, mode=Mode.POLL, status__in=POLLING)
        .filter(Q(refresh_claimed_until__isnull=True) | Q(refresh_claimed_until__lt=now))
        .update(refresh_claimed_until=now + claim_lease())
        == 1
    )


def subscription_poll(*, subscription_id: str) -> str:
    """Poll one subscription now, draining ``hasMore``. Returns ``ok``,
    ``retry``, ``failed``/``terminated``, ``moved`` (to another mode),
    ``revoked``, ``paused``, or ``busy``."""
    if not _claim(subscription_id, timezone.now()):
        return "busy"
    try:
        sub = Subscription.objects.select_related("server", "user").get(pk=subscription_id)
        grant = grant_is_live(
            user=sub.user_id, server_id=sub.server_id, scope=Scope.EVENTS, event_type=sub.event_name
        )
        if sub.server.deleted_at is not None or grant is None:
            subscription_revoke(subscription=sub, actor=SYSTEM, reason="consent_not_live")
            return "revoked"
        if sub.paused_at is not None:
            Subscription.objects.filter(pk=sub.pk).update(next_poll_at=None)
            return "paused"
        target = target_for(user=sub.user, server=sub.server)
        cursor = sub.cursor
        result = None
        for _ in range(settings.SUBSCRIPTION_POLL_DRAIN_MAX):
            try:
                result = remote_poll(
                    target=target,
                    name=sub.event_name,
                    arguments=sub.arguments,
                    cursor=cursor,
                    max_age_ms=sub.max_age_ms if cursor is not None else None,
                    max_events=settings.SUBSCRIPTION_POLL_MAX_EVENTS,
                    grant_id=grant.pk,
                )
            except OutboundRefused as refused:
                # Revoked or blocked while the session opened: nothing was
                # sent. Consent that could not be read: try again later.
                if refused.verdict.reason != CONSENT_UNAVAILABLE:
                    subscription_revoke(subscription=sub, actor=SYSTEM, reason="consent_not_live")
                    return "revoked"
                return _failed(sub, None, reaction=refusal(refused))
            except McpCallError as exc:
                return _failed(sub, exc)
            events_take_in(
                subscription_id=sub.pk,
                occurrences=[e.model_dump(by_alias=True, mode="json") for e in result.events],
                cursor=result.cursor,
                cursor_given=True,
                truncated=result.truncated,
                source="poll_truncated",
            )
            cursor = result.cursor
            if not result.has_more:
                break
        Subscription.objects.filter(pk=sub.pk).update(last_polled_at=timezone.now())
        wait = (
            0.0 if result is not None and result.has_more else next_poll_wait(_server_wish(result))
        )
        _poll_at(sub, wait)
        return "ok"
    finally:
        Subscription.objects.filter(pk=subscription_id).update(refresh_claimed_until=None)


def _server_wish(result) -> int | None:
    if result is None:
        return None
    if result.next_poll_ms is not None:
        return result.next_poll_ms
    if result.next_poll_seconds is not None:
        return int(result.next_poll_seconds * 1000)
    return None


def _failed(
    sub: Subscription, exc: McpCallError | None, *, reaction: Reaction | None = None
) -> str:
    """A failed poll (``exc``), or one that never left (``reaction``)."""
    now = timezone.now()
    with transaction.atomic():
        locked = (
            Subscription.objects.select_for_update(no_key=True)
            .select_related("server", "user")
            .get(pk=sub.pk)
        )
        if exc is not None and exc.code is not None:
            server_events_error_seen(server=locked.server, code=exc.code, method=exc.method)
        if reaction is None:
            assert exc is not None
            reaction = reaction_for(exc, running=True, dialect=locked.server.events_error_dialect)
        if locked.status not in POLLING:
            return "skipped"
        previous = locked.status
        locked.last_error = reaction.error
        locked.last_error_message = reaction.message[:500]
        if reaction.error == "unsupported_delivery_mode":
            locked.save(update_fields=["last_error", "last_error_message", "updated_at"])
            return (
                "moved" if delivery_mode_fallback(subscription=locked, actor=SYSTEM) else "failed"
            )
        if reaction.outcome in ("failed", "terminated"):
            locked.status = (
                SubscriptionStatus.FAILED
                if reaction.outcome == "failed" and previous == SubscriptionStatus.PENDING
                else SubscriptionStatus.TERMINATED
            )
            locked.ended_at = now
            locked.next_poll_at = None
            locked.save()
            status_changed(locked, previous=previous, actor=SYSTEM, reason=reaction.error)
            if reaction.error == "event_not_found":
                enqueue("switchboard.sync_server", locked.server_id)
            return reaction.outcome
        locked.refresh_failures += 1
        if reaction.outcome == "retry_from_now":
            locked.cursor = None
        locked.save()
        status_changed(locked, previous=previous, actor=SYSTEM, reason=reaction.error)
    _poll_at(locked, retry_backoff(locked.refresh_failures))
    return "retry"
