"""Digests (``channel`` cron or scheduled, see ``channels``): sending them.

Beat reads due rows through the ``next_digest_at`` index;
``subscription_digest`` sends one digest in one transaction with everything
it depends on: the outbox row, the events marked sent, and the next window's
start and due time. A worker killed before the commit leaves it all as it
was (the next tick sends it); after the commit, nothing is sent again.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import transaction
from django.utils import timezone

from subscriptions.models import LIVE_STATUSES, DigestState, ReceivedEvent, Subscription
from subscriptions.services.channels import DEFAULT_MAX_EVENTS, next_firing
from subscriptions.services.common import host_data, subscription_broadcast, subscription_emit
from subscriptions.services.intake import event_for_host
from subscriptions.services.lifecycle import subscription_revoke
from switchboard.actors import Actor
from switchboard.queue import enqueue_each

SYSTEM = Actor.system("subscriptions")


def subscriptions_digest_due(*, batch: int = 500) -> int:
    """Beat: one task per subscription whose digest is due. The rows are
    locked with SKIP LOCKED and their due time is left as it is: the task
    moves it on in the transaction that sends, so a lost task is sent by the
    next tick instead."""
    now = timezone.now()
    ids = list(
        Subscription.objects.filter(next_digest_at__lte=now)
        .order_by("next_digest_at")
        .values_list("id", flat=True)[:batch]
    )
    enqueue_each("subscriptions.digest_subscription", [(i,) for i in ids])
    return len(ids)


def subscription_digest(*, subscription_id: str) -> str:
    """Send one digest if it is due: ``sent``, ``empty`` (nothing arrived: no
    delivery), ``not_due`` or ``ended``."""
    now = timezone.now()
    with transaction.atomic():
        sub = (
            Subscription.objects.select_for_update(no_key=True, of=("self",), skip_locked=True)
            .select_related("user", "server")
            .filter(pk=subscription_id)
            .first()
        )
        if sub is None or sub.next_digest_at is None or sub.next_digest_at > now:
            return "not_due"  # another worker has it, or it was sent already
        if sub.status not in LIVE_STATUSES:
            Subscription.objects.filter(pk=sub.pk).update(next_digest_at=None)
            return "ended"
        limit = int(sub.channel.get("max_events") or DEFAULT_MAX_EVENTS)
        waiting = list(
            ReceivedEvent.objects.filter(subscription=sub, digest_state=DigestState.WAITING)
            .order_by("id")
            .values_list("id", "body")
        )
        included, left_out = waiting[:limit], waiting[limit:]
        if included:
            subscription_emit(
                sub,
                type="events.digest",
                data={
                    **host_data(sub),
                    "window": {
                        "from": _iso(sub.digest_from or sub.created_at),
                        "to": _iso(now),
                    },
                    "events": [event_for_host(body) for _, body in included],
                    "truncated": bool(left_out),
                },
            )
            ReceivedEvent.objects.filter(pk__in=[pk for pk, _ in included]).update(
                digest_state=DigestState.SENT
            )
        if left_out:
            ReceivedEvent.objects.filter(pk__in=[pk for pk, _ in left_out]).update(
                digest_state=DigestState.DROPPED
            )
        sub.digest_from = now
        one_shot = sub.channel.get("type") == "scheduled"
        sub.next_digest_at = None if one_shot else next_firing(sub.channel, now)
        sub.save(update_fields=["digest_from", "next_digest_at", "updated_at"])
        subscription_broadcast(sub)
        if one_shot and sub.channel.get("expire_after", True):
            # One-shot: it ends with its digest (the unsubscribe, if any, by a task).
            subscription_revoke(
                subscription=sub, actor=SYSTEM, reason="delivered", unsubscribe_now=False
            )
    return "sent" if included else "empty"


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
