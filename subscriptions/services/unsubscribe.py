"""``events/unsubscribe`` for a subscription we ended, owed until the server
accepts it (docs/host-integration.md). Below both lifecycle (revoking owes it) and
refresh (a revoke that raced a refresh owes it again).

The server keeps a subscription we failed to take down until its TTL ends (a
week, on some servers), delivering to a receiver that answers 410. So a
refusal or an unreachable server is never taken as done: the call is tried
again with backoff, the subscription shows ``unsubscribe: pending`` with the
last error meanwhile, and after SUBSCRIPTION_UNSUBSCRIBE_ATTEMPTS tries it
shows ``failed``, with an entry in the ledger and on the pages.
"""

from __future__ import annotations

import time
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from subscriptions.models import (
    RefreshAttempt,
    RefreshKind,
    Subscription,
    UnsubscribeState,
)
from subscriptions.services.common import (
    receiver_url,
    retry_backoff,
    subscription_broadcast,
    subscription_record,
)
from subscriptions.services.remote import already_gone, remote_unsubscribe, target_for
from switchboard.actors import Actor
from switchboard.mcp import McpCallError
from switchboard.queue import enqueue, enqueue_each
from switchboard.services.server_dialects import server_events_error_seen

SYSTEM = Actor.system("unsubscribe")


def unsubscribe_owed(subscription_ids: list[str], *, caller_tries_first: bool = False) -> None:
    """Inside the transaction that ended them: these subscriptions must be
    taken down on their server. Tried right after commit by a worker, or by
    the caller itself (``caller_tries_first``; beat finds it if the caller
    never does)."""
    if not subscription_ids:
        return
    Subscription.objects.filter(pk__in=subscription_ids).update(
        unsubscribe_state=UnsubscribeState.PENDING,
        unsubscribe_attempts=0,
        unsubscribe_last_error="",
        unsubscribe_next_at=timezone.now(),
    )
    if caller_tries_first:
        return
    enqueue_each("subscriptions.unsubscribe_subscription", [(i,) for i in subscription_ids])


def _claim(subscription_id: str) -> bool:
    now = timezone.now()
    return bool(
        Subscription.objects.filter(
            pk=subscription_id,
            unsubscribe_state=UnsubscribeState.PENDING,
            unsubscribe_next_at__lte=now,
            # Held for one try as long as a refresh holds its claim.
        ).update(unsubscribe_next_at=now + timedelta(seconds=settings.SUBSCRIPTION_REFRESH_LEASE))
    )


def subscription_unsubscribe(*, subscription_id: str) -> str:
    """One try of an owed unsubscribe: ``done``, ``retry`` (scheduled),
    ``failed`` (the last try), or ``skipped`` (not owed, or not due)."""
    if not _claim(subscription_id):
        return "skipped"
    sub = Subscription.objects.select_related("server", "user").get(pk=subscription_id)
    if not sub.server.url:
        # A server the host reaches itself: there is nobody for us to call.
        return _settle(sub, ok=True, message="the host reaches this server itself")
    started = time.monotonic()
    try:
        remote_unsubscribe(
            target=target_for(user=sub.user, server=sub.server),
            name=sub.event_name,
            arguments=sub.arguments,
            url=receiver_url(sub),
        )
    except McpCallError as exc:
        duration_ms = int((time.monotonic() - started) * 1000)
        if exc.code is not None:
            server_events_error_seen(server=sub.server, code=exc.code, method=exc.method)
        gone = already_gone(exc, dialect=sub.server.events_error_dialect)
        _attempt(sub, ok=gone, exc=exc, duration_ms=duration_ms)
        if gone:
            return _settle(sub, ok=True, message="the server had already forgotten it")
        return _settle(sub, ok=False, message=_error_text(exc))
    _attempt(sub, ok=True, exc=None, duration_ms=int((time.monotonic() - started) * 1000))
    return _settle(sub, ok=True, message="")


def _error_text(exc: McpCallError) -> str:
    code = f" {exc.code}" if exc.code is not None else ""
    return f"{exc.category}{code}: {exc.message}"[:300]


def _attempt(sub: Subscription, *, ok: bool, exc: McpCallError | None, duration_ms: int) -> None:
    RefreshAttempt.objects.create(
        subscription=sub,
        kind=RefreshKind.UNSUBSCRIBE,
        ok=ok,
        error_category=""
        if exc is None or ok
        else (exc.category if exc.code is None else f"code_{exc.code}"),
        error_code=exc.code if exc is not None else None,
        message=(str(exc)[:500] if exc is not None else ""),
        duration_ms=duration_ms,
    )


@transaction.atomic
def _settle(sub: Subscription, *, ok: bool, message: str) -> str:
    locked = (
        Subscription.objects.select_for_update(no_key=True).select_related("server").get(pk=sub.pk)
    )
    attempts = locked.unsubscribe_attempts + 1
    if ok:
        Subscription.objects.filter(pk=sub.pk).update(
            unsubscribe_state=UnsubscribeState.DONE,
            unsubscribe_attempts=attempts,
            unsubscribe_next_at=None,
        )
        if attempts > 1:
            subscription_record(
                locked,
                kind="unsubscribed",
                actor=SYSTEM,
                summary=f"{locked.server.name} accepted the unsubscribe of "
                f"{locked.event_name} after {attempts} tries",
                detail={"attempts": attempts},
            )
        subscription_broadcast(locked)
        return "done"
    if attempts >= settings.SUBSCRIPTION_UNSUBSCRIBE_ATTEMPTS:
        Subscription.objects.filter(pk=sub.pk).update(
            unsubscribe_state=UnsubscribeState.FAILED,
            unsubscribe_attempts=attempts,
            unsubscribe_last_error=message,
            unsubscribe_next_at=None,
        )
        until = (
            f"until {locked.refresh_before:%Y-%m-%d %H:%M} UTC"
            if locked.refresh_before
            else "with no expiry"
        )
        subscription_record(
            locked,
            kind="unsubscribe_failed",
            actor=SYSTEM,
            summary=f"{locked.server.name} did not accept the unsubscribe of "
            f"{locked.event_name} after {attempts} tries ({message[:120]}); it may keep the "
            f"subscription {until}, and our receiver refuses its deliveries (410)",
            detail={"attempts": attempts, "last_error": message},
        )
        subscription_broadcast(locked)
        return "failed"
    wait = retry_backoff(attempts)
    Subscription.objects.filter(pk=sub.pk).update(
        unsubscribe_attempts=attempts,
        unsubscribe_last_error=message,
        unsubscribe_next_at=timezone.now() + timedelta(seconds=wait),
    )
    # Short waits are broker countdowns; longer ones wait for beat.
    if wait <= settings.SUBSCRIPTION_COUNTDOWN_MAX:
        enqueue("subscriptions.unsubscribe_subscription", sub.pk, countdown=wait)
    subscription_broadcast(locked)
    return "retry"


def subscriptions_unsubscribe_due(*, limit: int = 200) -> int:
    """Beat: owed unsubscribes whose next try is due (or whose task was lost)."""
    due = list(
        Subscription.objects.filter(
            unsubscribe_state=UnsubscribeState.PENDING, unsubscribe_next_at__lte=timezone.now()
        )
        .order_by("unsubscribe_next_at")
        .values_list("pk", flat=True)[:limit]
    )
    enqueue_each("subscriptions.unsubscribe_subscription", [(pk,) for pk in due])
    return len(due)
