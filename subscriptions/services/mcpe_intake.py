"""What an MCPE server sends on the session we hold (``subscriptions.services.mcpe``
explains the session): ``events/event`` and ``events/batch`` (fanned into
single events) go through the same intake as push and poll, at most
MCPE_MAX_EVENTS_PER_MINUTE per user (``mcpe_limits``: past it, dropped, and a
``rate_limited`` gap once a minute); ``events/subscription_expired`` ends the
subscription as ``expired``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from subscriptions.models import Mode, Subscription, SubscriptionStatus, mcpe_session_pair
from subscriptions.services.common import gap_flag, status_changed, subscription_broadcast
from subscriptions.services.intake import SERVER, events_take_in
from subscriptions.services.mcpe_limits import EVENTS_LIMIT_MESSAGE, mcpe_events_allowed

log = logging.getLogger(__name__)

# Subscriptions the held session serves (pending_consent waits; ended ones are gone).
SERVED = (
    SubscriptionStatus.PENDING,
    SubscriptionStatus.ACTIVE,
    SubscriptionStatus.PAUSED,
    SubscriptionStatus.SUSPENDED,
)


def _occurrence(event: Any) -> dict[str, Any] | None:
    """An MCPE event as the intake stores it (and the host receives it)."""
    if not isinstance(event, dict) or not isinstance(event.get("id"), str):
        return None
    raw_metadata = event.get("metadata")
    metadata: dict[str, Any] = raw_metadata if isinstance(raw_metadata, dict) else {}
    return {
        "eventId": event["id"],
        "name": event.get("type"),
        "timestamp": metadata.get("timestamp"),
        "data": event.get("data"),
        "metadata": metadata,
    }


def mcpe_notification_take(item: str, method: str, params: dict[str, Any]) -> None:
    user_id, server_id = mcpe_session_pair(item)
    remote_id = params.get("subscriptionId")
    sub = (
        Subscription.objects.filter(
            user_id=user_id, server_id=server_id, mode=Mode.MCPE, remote_id=remote_id
        )
        .exclude(remote_id="")
        .first()
    )
    if sub is None:
        log.info("MCPE %s for a subscription we do not hold (%r); dropped", method, remote_id)
        return
    if method == "events/subscription_expired":
        mcpe_expired_by_server(sub.pk)
        return
    events = [params.get("event")] if method == "events/event" else params.get("events") or []
    occurrences = [o for o in (_occurrence(e) for e in events) if o is not None]
    allowed = mcpe_events_allowed(user_id=user_id, count=len(occurrences))
    if occurrences[:allowed]:
        events_take_in(
            subscription_id=sub.pk,
            occurrences=occurrences[:allowed],
            cursor=None,
            cursor_given=False,
            source="mcpe",
        )
    if allowed < len(occurrences):
        _rate_limited(sub.pk, dropped=len(occurrences) - allowed)


def _rate_limited(subscription_id: str, *, dropped: int) -> None:
    """Events past MCPE_MAX_EVENTS_PER_MINUTE are not forwarded: the
    subscription shows it, and the host and the ledger hear of it once per
    subscription and minute."""
    with transaction.atomic():
        sub = (
            Subscription.objects.select_for_update(no_key=True, of=("self",))
            .select_related("server", "user")
            .get(pk=subscription_id)
        )
        limit = settings.MCPE_MAX_EVENTS_PER_MINUTE
        message = EVENTS_LIMIT_MESSAGE.format(
            dropped=dropped, user=sub.user.external_id, limit=limit
        )
        sub.last_error = "rate_limited"
        sub.last_error_message = message
        sub.save(update_fields=["last_error", "last_error_message", "updated_at"])
        try:
            with transaction.atomic():
                gap_flag(
                    sub,
                    cursor=None,
                    source="rate_limited",
                    reason="rate_limited",
                    key=f"rate_limited:{int(time.time() // 60)}",
                    actor=SERVER,
                    summary=message,
                    detail={"dropped": dropped, "limit": limit},
                )
        except IntegrityError:
            log.info("%s (said already this minute)", message)
        subscription_broadcast(sub)


def mcpe_expired_by_server(subscription_id: str) -> None:
    with transaction.atomic():
        sub = (
            Subscription.objects.select_for_update(no_key=True, of=("self",))
            .select_related("server", "user")
            .get(pk=subscription_id)
        )
        if sub.status not in SERVED:
            return
        previous = sub.status
        sub.status = SubscriptionStatus.EXPIRED
        sub.ended_at = timezone.now()
        sub.remote_state = ""
        sub.save()
        status_changed(sub, previous=previous, actor=SERVER, reason="expired_by_server")
