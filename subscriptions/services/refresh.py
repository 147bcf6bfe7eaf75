"""Keeping subscriptions alive: subscribe, refresh, resubscribe, unsubscribe.

1. Beat runs ``subscriptions_refresh_due`` every BEAT_TICK: it reads the due
   rows through the ``next_refresh_at`` index (cost grows with due work, not
   with all subscriptions), pushes each due time forward by the lease so the
   next tick does not dispatch it again, and enqueues one task per row.
2. The task runs ``subscription_refresh``: it claims the row with a
   conditional UPDATE on ``refresh_claimed_until`` (so two workers never
   refresh one subscription at once), checks consent, calls
   ``events/subscribe`` outside any transaction, then applies the answer or
   the failure (see the error table in ``remote.py``) under a row lock.
3. A successful call schedules the next refresh at 2/3 of the granted TTL
   (no-expiry grants: SUBSCRIPTION_HEALTH_REFRESH); a transient failure backs
   off, always landing before ``refreshBefore``; past it the subscription
   shows ``expired`` and the next attempt subscribes again from the last
   cursor with ``maxAgeMs``.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from consent.enforce import CONSENT_UNAVAILABLE, OutboundRefused
from consent.models import Scope
from consent.selectors import grant_is_live
from subscriptions.models import (
    RUNNING_STATUSES,
    RefreshAttempt,
    RefreshKind,
    Subscription,
    SubscriptionStatus,
)
from subscriptions.services.common import (
    claim_lease,
    countdown_take,
    due_again_soon,
    gap_flag,
    receiver_url,
    retry_backoff,
    running_status,
    status_changed,
    subscription_broadcast,
    subscription_record,
)
from subscriptions.services.lifecycle import subscription_revoke
from subscriptions.services.modes import delivery_mode_fallback
from subscriptions.services.remote import (
    Reaction,
    reaction_for,
    refusal,
    remote_subscribe,
    target_for,
)
from subscriptions.services.unsubscribe import unsubscribe_owed
from switchboard.actors import Actor
from switchboard.mcp import McpCallError
from switchboard.mcp.wire import EventsSubscribeResult
from switchboard.queue import enqueue
from switchboard.services.server_dialects import server_events_error_seen

log = logging.getLogger(__name__)

REFRESH_AT = 2 / 3  # of the granted TTL (docs/events-client.md §5; case 58 holds it to 50–70 %)
SYSTEM = Actor.system("subscriptions")


# --- scheduling ----------------------------------------------------------------


def subscriptions_due_for_refresh(*, now: datetime, limit: int = 200) -> list[str]:
    """Ids whose due time has come and that nobody is refreshing, oldest first."""
    return list(
        Subscription.objects.filter(next_refresh_at__lte=now)
        .filter(Q(refresh_claimed_until__isnull=True) | Q(refresh_claimed_until__lt=now))
        .order_by("next_refresh_at")
        .values_list("id", flat=True)[:limit]
    )


def subscriptions_refresh_due() -> int:
    """Beat: enqueue a refresh for every due subscription (see module docstring)."""
    now = timezone.now()
    dispatched = 0
    for subscription_id in subscriptions_due_for_refresh(now=now):
        moved = Subscription.objects.filter(pk=subscription_id, next_refresh_at__lte=now).update(
            next_refresh_at=now + timedelta(seconds=settings.SUBSCRIPTION_REFRESH_LEASE)
        )
        if moved:
            enqueue("subscriptions.refresh_subscription", subscription_id)
            dispatched += 1
    return dispatched


def _claim(subscription_id: str, now: datetime) -> bool:
    return (
        Subscription.objects.filter(pk=subscription_id, status__in=RUNNING_STATUSES)
        .filter(Q(refresh_claimed_until__isnull=True) | Q(refresh_claimed_until__lt=now))
        .update(refresh_claimed_until=now + claim_lease())
        == 1
    )


def _refresh_on_time(sub: Subscription, *, now: datetime) -> None:
    """A refresh due sooner than beat's tick could be late (a 20 s grant is
    due at 13 s; a 10 s tick may land after it ran out): schedule it as a
    countdown too. Beat stays the fallback if that task is lost."""
    if sub.next_refresh_at is None:
        return
    wait = (sub.next_refresh_at - now).total_seconds()
    if wait <= settings.SUBSCRIPTION_COUNTDOWN_MAX:
        enqueue(
            "subscriptions.refresh_when_due",
            sub.pk,
            sub.next_refresh_at.isoformat(),
            countdown=max(wait, 0.0),
        )


def subscription_refresh_when_due(*, subscription_id: str, due: str | None = None) -> str:
    """A countdown's refresh, if it is still the one it was sent for
    (``common.countdown_take``)."""
    if not countdown_take(subscription_id=subscription_id, field="next_refresh_at", due=due):
        return "not_due"
    outcome = subscription_refresh(subscription_id=subscription_id)
    due_again_soon(subscription_id, field="next_refresh_at", taken=outcome == "busy")
    return outcome


def _release(subscription_id: str) -> None:
    Subscription.objects.filter(pk=subscription_id).update(refresh_claimed_until=None)


# --- the refresh -----------------------------------------------------------------


def subscription_refresh(*, subscription_id: str) -> str:
    """Subscribe or refresh one subscription now. Returns what happened:
    ``ok``, ``retry``, ``failed``/``terminated``, ``revoked``, ``busy`` (another
    worker holds it) or ``skipped`` (not running)."""
    now = timezone.now()
    if not _claim(subscription_id, now):
        return "busy"
    try:
        sub = Subscription.objects.select_related("server", "user").get(pk=subscription_id)
        grant = grant_is_live(
            user=sub.user_id, server_id=sub.server_id, scope=Scope.EVENTS, event_type=sub.event_name
        )
        if sub.server.deleted_at is not None or grant is None:
            return _consent_gone(sub)
        if sub.status == SubscriptionStatus.PENDING:
            kind = RefreshKind.SUBSCRIBE
        elif sub.status == SubscriptionStatus.EXPIRED or (
            sub.refresh_before is not None and sub.refresh_before <= now
        ):
            kind = RefreshKind.RESUBSCRIBE
        else:
            kind = RefreshKind.REFRESH
        secret = sub.secret
        started = time.monotonic()
        try:
            result = remote_subscribe(
                target=target_for(user=sub.user, server=sub.server),
                name=sub.event_name,
                arguments=sub.arguments,
                url=receiver_url(sub),
                secret=secret,
                cursor=sub.cursor,
                max_age_ms=sub.max_age_ms or int(settings.SUBSCRIPTION_REPLAY_MAX_AGE * 1000),
                ttl_ms=sub.ttl_ms,
                grant_id=grant.pk,
            )
        except OutboundRefused as refused:
            # Revoked or blocked while the session opened: nothing was sent.
            # Consent that could not be read is no answer: try again later.
            if refused.verdict.reason != CONSENT_UNAVAILABLE:
                return _consent_gone(sub)
            duration = int((time.monotonic() - started) * 1000)
            return _apply_failure(
                subscription_id, None, kind=kind, duration_ms=duration, reaction=refusal(refused)
            )
        except McpCallError as exc:
            duration = int((time.monotonic() - started) * 1000)
            return _apply_failure(subscription_id, exc, kind=kind, duration_ms=duration)
        duration = int((time.monotonic() - started) * 1000)
        return _apply_success(
            subscription_id, result, kind=kind, secret_sent=secret, duration_ms=duration
        )
    finally:
        _release(subscription_id)


def _consent_gone(sub: Subscription) -> str:
    _release(sub.pk)
    subscription_revoke(subscription=sub, actor=SYSTEM, reason="consent_not_live")
    return "revoked"


def _parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    parsed = parse_datetime(value.replace("Z", "+00:00"))
    if parsed is None:
        return None
    if timezone.is_naive(parsed):
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def _next_refresh(sub: Subscription, *, now: datetime, refresh_before: datetime | None) -> datetime:
    if refresh_before is not None:
        return now + (refresh_before - now) * REFRESH_AT
    if sub.ttl_ms is not None:
        # We asked for an expiry and the server answered none: a protocol
        # violation (SEP-3415 §"Subscription TTL"); refresh as if our own suggestion had been
        # granted (docs/events-client.md §5).
        log.warning(
            "subscription %s: refreshBefore null after a finite ttlMs (protocol violation)",
            sub.id,
        )
        return now + timedelta(milliseconds=sub.ttl_ms) * REFRESH_AT
    return now + timedelta(seconds=settings.SUBSCRIPTION_HEALTH_REFRESH)


def _locked(subscription_id: str) -> Subscription:
    return (
        Subscription.objects.select_for_update(no_key=True)
        .select_related("server", "user")
        .get(pk=subscription_id)
    )


def _gap_record(sub: Subscription, *, cursor: str | None, source: str) -> None:
    gap_flag(
        sub,
        cursor=cursor,
        source=source,
        actor=SYSTEM,
        summary=f"Possible gap in {sub.event_name}: the server started later than our cursor",
    )


def _apply_success(
    subscription_id: str,
    result: EventsSubscribeResult,
    *,
    kind: str,
    secret_sent: str,
    duration_ms: int,
) -> str:
    now = timezone.now()
    refresh_before = _parse_time(result.refresh_before)
    status = (
        result.delivery_status.model_dump(by_alias=True, exclude_none=True)
        if result.delivery_status is not None
        else None
    )
    with transaction.atomic():
        sub = _locked(subscription_id)
        RefreshAttempt.objects.create(
            subscription=sub,
            kind=kind,
            ok=True,
            duration_ms=duration_ms,
            refresh_before=refresh_before,
            truncated=bool(result.truncated),
            delivery_status=status,
        )
        if sub.status not in RUNNING_STATUSES:
            # Revoked while the call was in flight: the call just renewed it
            # on the server, so take it down again.
            unsubscribe_owed([sub.id])
            return "skipped"
        previous = sub.status
        if sub.remote_id and sub.remote_id != result.id:
            log.warning("subscription %s: the server's id changed", sub.id)
        sub.remote_id = result.id[:200]
        sub.refresh_before = refresh_before
        sub.last_refreshed_at = now
        sub.refresh_failures = 0
        sub.last_error = ""
        sub.last_error_message = ""
        sub.next_refresh_at = _next_refresh(sub, now=now, refresh_before=refresh_before)
        if sub.secret != secret_sent:
            sub.next_refresh_at = now  # rotated during the call: send the new secret
        if status is not None:
            sub.delivery_status = status
        if result.cursor is not None:
            sub.cursor = result.cursor
            sub.cursor_event_at = None
        if sub.previous_secret_until and sub.previous_secret_until <= now:
            sub.previous_secret_encrypted = ""
            sub.previous_secret_until = None
        if result.truncated and sub.cursor is not None:
            _gap_record(sub, cursor=result.cursor, source=kind)
        reason = f"{kind}_ok"
        if status is not None and status.get("active") is False:
            # The server had stopped delivering: shown until deliveries flow
            # again (the next event received, or a refresh without the flag).
            category = str(status.get("lastError") or "unknown")[:40]
            sub.status = SubscriptionStatus.SUSPENDED
            sub.last_error = "delivery_suspended"
            sub.last_error_message = (
                f"The server had stopped delivering to our receiver ({category}); "
                "waiting for deliveries to resume."
            )
            reason = f"delivery_suspended:{category}"
        else:
            sub.status = running_status(sub)
        sub.save()
        _refresh_on_time(sub, now=now)
        if status is not None and (status.get("active") is False or status.get("lastError")):
            _delivery_alert(sub, status)
        if previous != sub.status:
            status_changed(sub, previous=previous, actor=SYSTEM, reason=reason)
        else:
            subscription_broadcast(sub)
    return "ok"


def _delivery_alert(sub: Subscription, status: dict) -> None:
    """The server reported failed deliveries to our receiver (docs/conformance.md case 26)."""
    category = str(status.get("lastError") or "unknown")[:40]
    suspended = status.get("active") is False
    subscription_record(
        sub,
        kind="delivery_alert",
        actor=SYSTEM,
        summary=(
            f"The server had suspended delivery of {sub.event_name} ({category}); "
            "this refresh reactivated it"
            if suspended
            else f"The server reports failed deliveries of {sub.event_name} ({category})"
        ),
        detail={"delivery_status": status},
    )


def _apply_failure(
    subscription_id: str,
    exc: McpCallError | None,
    *,
    kind: str,
    duration_ms: int,
    reaction: Reaction | None = None,
) -> str:
    """A failed call (``exc``), or a call that never left (``reaction``)."""
    now = timezone.now()
    code = exc.code if exc is not None else None
    with transaction.atomic():
        sub = _locked(subscription_id)
        if exc is not None and exc.code is not None:
            server_events_error_seen(server=sub.server, code=exc.code, method=exc.method)
        if reaction is None:
            assert exc is not None
            reaction = reaction_for(
                exc,
                running=sub.status != SubscriptionStatus.PENDING,
                dialect=sub.server.events_error_dialect,
            )
        RefreshAttempt.objects.create(
            subscription=sub,
            kind=kind,
            ok=False,
            error_category=reaction.error,
            error_code=code,
            message=reaction.message[:500],
            duration_ms=duration_ms,
        )
        if sub.status not in RUNNING_STATUSES:
            return "skipped"
        previous = sub.status
        sub.last_error = reaction.error
        sub.last_error_message = reaction.message[:500]
        if reaction.error == "unsupported_delivery_mode":
            # Case 47: the server will not deliver it by webhook; the next
            # mode the event type offers, if any.
            sub.save(update_fields=["last_error", "last_error_message", "updated_at"])
            return "moved" if delivery_mode_fallback(subscription=sub, actor=SYSTEM) else "failed"
        if reaction.outcome in ("failed", "terminated"):
            sub.status = (
                SubscriptionStatus.FAILED
                if reaction.outcome == "failed"
                else SubscriptionStatus.TERMINATED
            )
            sub.ended_at = now
            sub.next_refresh_at = None
            sub.save()
            status_changed(sub, previous=previous, actor=SYSTEM, reason=reaction.error)
            if reaction.error == "event_not_found":
                # Conformance case 52: the server dropped the type; list again so
                # the registry (and the next consent question) follow it.
                enqueue("switchboard.sync_server", sub.server_id)
            return reaction.outcome
        if reaction.error == "unsupported_protocol_version":
            # UnsupportedProtocolVersion (MCP 2026-07-28): discover again which versions it speaks.
            enqueue("switchboard.sync_server", sub.server_id)
        sub.refresh_failures += 1
        if reaction.outcome == "retry_from_now" and sub.refresh_failures <= 1:
            _gap_record(sub, cursor=None, source="cursor_expired")
            sub.cursor = None
            sub.cursor_event_at = None
            sub.next_refresh_at = now
        else:
            next_at = now + timedelta(seconds=retry_backoff(sub.refresh_failures))
            if sub.refresh_before is not None and now < sub.refresh_before:
                # Land every retry before the grant runs out.
                next_at = min(next_at, now + (sub.refresh_before - now) / 2)
            sub.next_refresh_at = next_at
        lapsed = sub.refresh_before is not None and sub.refresh_before <= now
        if lapsed and sub.status in (
            SubscriptionStatus.ACTIVE,
            SubscriptionStatus.PAUSED,
            SubscriptionStatus.SUSPENDED,
        ):
            sub.status = SubscriptionStatus.EXPIRED
        sub.save()
        status_changed(sub, previous=previous, actor=SYSTEM, reason=reaction.error)
    return "retry"


# --- unsubscribing ----------------------------------------------------------------
