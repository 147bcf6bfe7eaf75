"""Delivery modes: which one a subscription uses, and setting its machinery
going or stopping it (docs/events-client.md §3; cases 46-47).

Webhook subscriptions are subscribed and refreshed by Celery; poll ones are
polled by Celery on their due time; push ones are held by the session worker,
which is told at once (over Redis) when one should open or close.
"""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone

from subscriptions.models import Mode, Subscription, SubscriptionStatus
from subscriptions.services.common import due_now, status_changed, subscription_record
from subscriptions.services.mcpe import mcpe_wake
from switchboard.actors import Actor
from switchboard.errors import Invalid
from switchboard.models import EventType
from switchboard.sessions.wakeup import held_stream_changed

# Preference among the modes a descriptor lists (docs/events-client.md §3).
MODE_PREFERENCE = (Mode.WEBHOOK, Mode.PUSH, Mode.POLL)
PUSH = "push"  # the session worker's kind for push streams


def delivery_start(subscription: Subscription) -> None:
    """Inside the transaction that made it pending (or resumed it): set its
    mode's machinery going. Webhook: subscribe now; poll: poll now; push:
    the session worker opens the stream (told at once over Redis)."""
    if subscription.mode == Mode.WEBHOOK:
        due_now(subscription.id, field="next_refresh_at")
    elif subscription.mode == Mode.POLL:
        due_now(subscription.id, field="next_poll_at")
    elif subscription.mode == Mode.MCPE:
        mcpe_wake(subscription)
    else:
        held_stream_changed(PUSH, subscription.id)


def delivery_stop(subscription: Subscription) -> None:
    """Inside the transaction that ended or paused it: no more polls; the
    push stream closes (the worker is told at once)."""
    Subscription.objects.filter(pk=subscription.pk).update(next_poll_at=None)
    subscription.next_poll_at = None
    if subscription.mode == Mode.PUSH:
        held_stream_changed(PUSH, subscription.id)
    elif subscription.mode == Mode.MCPE:
        mcpe_wake(subscription)  # the held session pauses or unsubscribes it


def runnable_modes() -> list[str]:
    """What this console can run, best first: webhook only when servers can
    reach PUBLIC_BASE_URL (SUBSCRIPTION_WEBHOOK_REACHABLE)."""
    return [
        mode
        for mode in MODE_PREFERENCE
        if mode != Mode.WEBHOOK or settings.SUBSCRIPTION_WEBHOOK_REACHABLE
    ]


def delivery_mode_choose(
    *, offered: list[str], requested: str = "auto", exclude: tuple[str, ...] = ()
) -> str:
    """webhook > push > poll among what the event type offers and we can run
    (case 46); a forced mode must be offered and runnable. 422
    ``unsupported_delivery_mode`` naming the modes offered when nothing fits."""
    offered_set = set(offered or []) - set(exclude)
    runnable = runnable_modes()
    if requested != "auto":
        candidates = [requested] if requested in offered_set else []
    else:
        candidates = [mode for mode in MODE_PREFERENCE if mode in offered_set]
    for mode in candidates:
        if mode in runnable:
            return mode
    offered_text = ", ".join(m for m in MODE_PREFERENCE if m in offered_set) or "none"
    why = ""
    if requested == Mode.WEBHOOK and Mode.WEBHOOK in offered_set:
        why = "; webhook needs a PUBLIC_BASE_URL servers can reach"
    raise Invalid(
        f"no usable delivery mode: the event type offers {offered_text}"
        + (f" and {requested} was asked for" if requested != "auto" else "")
        + why,
        field="delivery",
        code="unsupported_delivery_mode",
    )


def delivery_mode_fallback(*, subscription: Subscription, actor: Actor) -> bool:
    """The server refused the mode (-32014 ``feature: deliveryMode``, case 47):
    move to the next mode the event type offers, or fail when none is left.
    Inside a transaction, on a locked row."""
    sub = subscription
    event_type = EventType.objects.filter(
        server=sub.server, name=sub.event_name, removed_at__isnull=True
    ).first()
    try:
        mode = delivery_mode_choose(
            offered=event_type.delivery if event_type else [],
            exclude=(sub.mode,),
        )
    except Invalid:
        previous = sub.status
        sub.status = SubscriptionStatus.FAILED
        sub.ended_at = timezone.now()
        sub.next_refresh_at = None
        sub.next_poll_at = None
        sub.save()
        status_changed(sub, previous=previous, actor=actor, reason="unsupported_delivery_mode")
        return False
    previous_mode = sub.mode
    delivery_stop(sub)
    sub.mode = mode
    sub.status = SubscriptionStatus.PENDING
    sub.next_refresh_at = None
    sub.next_poll_at = None
    sub.save()
    subscription_record(
        sub,
        kind="mode_changed",
        actor=actor,
        summary=f"The server does not deliver {sub.event_name} by {previous_mode}; "
        f"using {mode} instead",
        detail={"from": previous_mode, "to": mode},
    )
    delivery_start(sub)
    return True


__all__ = [
    "MODE_PREFERENCE",
    "PUSH",
    "delivery_mode_choose",
    "delivery_mode_fallback",
    "delivery_start",
    "delivery_stop",
    "runnable_modes",
]
