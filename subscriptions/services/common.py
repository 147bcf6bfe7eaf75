"""What every subscription service shares: identity keys, status changes
(ledger + host notice + live page), gaps we detect ourselves, and the
receiver URL."""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from outbox.emit import HostEmit, host_event_emit
from outbox.models import HostDelivery
from subscriptions.models import ReceivedEvent, ReceivedKind, Subscription, SubscriptionStatus
from switchboard.actors import Actor
from switchboard.backoff import backoff
from switchboard.broadcast import broadcast_topics, broadcast_topics_coalesced
from switchboard.queue import enqueue
from switchboard.services.audit import audit_record


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def arguments_key(arguments: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_json(arguments).encode()).hexdigest()


def subscription_emit(
    subscription: Subscription,
    *,
    type: str,
    data: dict[str, Any],
    endpoint_status: str | None | object = ...,
) -> HostDelivery:
    """Tell the host, through the outbox, on the subscription's own stream
    (pull delivery reads it; a paused one holds its events and gaps)."""
    spec = subscription_emit_spec(subscription, type=type, data=data)
    return host_event_emit(
        host_id=spec.host_id,
        type=spec.type,
        data=spec.data,
        stream=spec.stream,
        hold=spec.hold,
        endpoint_status=endpoint_status,
    )


def subscription_emit_spec(
    subscription: Subscription, *, type: str, data: dict[str, Any]
) -> HostEmit:
    """What ``subscription_emit`` writes, for a caller that writes the outbox
    row in a statement of its own (the webhook receiver)."""
    return HostEmit(
        host_id=subscription.host_id,
        type=type,
        data=data,
        stream=subscription.id,
        hold=subscription.paused_at is not None,
    )


def claim_lease() -> timedelta:
    """How long a worker holds a subscription it refreshes or polls: long
    enough to outlast one MCP call, whatever SUBSCRIPTION_REFRESH_LEASE says."""
    floor = settings.MCP_CONNECT_TIMEOUT + settings.MCP_CALL_TIMEOUT + 5
    return timedelta(seconds=max(settings.SUBSCRIPTION_REFRESH_LEASE, floor))


# A broker may hand a countdown over a little early; it still counts as due.
COUNTDOWN_EARLY = timedelta(milliseconds=50)


def countdown_take(*, subscription_id: str, field: str, due: str | None) -> bool:
    """A countdown task's claim on the due time in ``field`` (``next_poll_at``,
    ``next_refresh_at``) it was sent for (``due``, ISO). Only that due time:
    a stale countdown (beat ran its work meanwhile, which scheduled another)
    finds a different one and does nothing; otherwise each stale countdown
    would start a second chain. Taking it moves the due time on by the claim
    lease, as beat's dispatch does, so exactly one of the two runs it. A
    countdown sent before due times were carried (``due`` None) takes
    whatever is due."""
    now = timezone.now()
    rows = Subscription.objects.filter(
        pk=subscription_id, **{f"{field}__lte": now + COUNTDOWN_EARLY}
    )
    if due is not None:
        rows = rows.filter(**{field: datetime.fromisoformat(due)})
    return rows.update(**{field: now + claim_lease()}) == 1


# The countdown task that runs each due-time field's work.
_WHEN_DUE_TASK = {
    "next_refresh_at": "subscriptions.refresh_when_due",
    "next_poll_at": "subscriptions.poll_when_due",
}


def due_now(subscription_id: str, *, field: str) -> None:
    """Make ``field``'s work due now and send the task for exactly this due
    time (after commit). Beat may see the same due time first: whichever
    takes it moves it on, so the work runs once (``countdown_take``); a bare
    task would run it a second time right after the first."""
    now = timezone.now()
    Subscription.objects.filter(pk=subscription_id).update(**{field: now})
    enqueue(_WHEN_DUE_TASK[field], subscription_id, now.isoformat())


def due_again_soon(subscription_id: str, *, field: str, taken: bool) -> None:
    """A countdown took ``field``'s due time (``countdown_take`` moved it a
    claim lease on) but found the row busy with another run, e.g. the
    refresh that has just moved it to polling and has not let go yet. Left
    alone, the work would wait out the whole lease; it is due again in a
    moment instead (SUBSCRIPTION_POLL_FLOOR), with its own countdown."""
    if not taken:
        return
    soon = timezone.now() + timedelta(seconds=settings.SUBSCRIPTION_POLL_FLOOR)
    moved = Subscription.objects.filter(pk=subscription_id, **{f"{field}__isnull": False}).update(
        **{field: soon}
    )
    if moved:
        enqueue(
            _WHEN_DUE_TASK[field],
            subscription_id,
            soon.isoformat(),
            countdown=settings.SUBSCRIPTION_POLL_FLOOR,
        )


def retry_backoff(failures: int) -> float:
    """Seconds before the next try after ``failures`` failed ones in a row:
    SUBSCRIPTION_RETRY_BASE doubling, capped by SUBSCRIPTION_RETRY_MAX."""
    return backoff(
        failures, base=settings.SUBSCRIPTION_RETRY_BASE, cap=settings.SUBSCRIPTION_RETRY_MAX
    )


def gap_flag(
    subscription: Subscription,
    *,
    cursor: str | None,
    source: str,
    actor: Actor,
    summary: str,
    reason: str | None = None,
    key: str | None = None,
    detail: dict[str, Any] | None = None,
) -> None:
    """A gap we detected ourselves (not a server's ``gap`` envelope): kept in
    the subscription's history, flagged on it, told to the host, in the
    ledger. Inside a transaction. ``key`` makes it once-only (the history
    row is unique per key; a second one raises ``IntegrityError``)."""
    now = timezone.now()
    ReceivedEvent.objects.create(
        subscription=subscription,
        kind=ReceivedKind.GAP,
        webhook_id=(key or f"{source}_{uuid.uuid4().hex}")[:200],
        body={"type": "gap", "cursor": cursor, "source": source},
        cursor=cursor,
    )
    Subscription.objects.filter(pk=subscription.pk).update(truncated=True, last_gap_at=now)
    subscription.truncated = True
    subscription.last_gap_at = now
    data = {**host_data(subscription), "cursor": cursor}
    if reason:
        data["reason"] = reason
    subscription_emit(subscription, type="subscription.gap", data=data)
    subscription_record(
        subscription,
        kind="gap",
        actor=actor,
        summary=summary,
        detail={"source": source, **(detail or {})},
    )


def receiver_url(subscription: Subscription) -> str:
    """The delivery.url for the server: one per subscription, by token."""
    path = reverse("subscriptions:webhook", kwargs={"token": subscription.token})
    return f"{settings.PUBLIC_BASE_URL}{path}"


def subscription_record(
    subscription: Subscription,
    *,
    kind: str,
    actor: Actor,
    summary: str,
    detail: dict[str, Any] | None = None,
) -> None:
    """One ledger line about a subscription (never secrets or payloads)."""
    audit_record(
        host_id=subscription.host_id,
        kind=f"subscription.{kind}",
        actor=actor,
        user=subscription.user,
        server_id=subscription.server_id,
        subject_type="subscription",
        subject_id=subscription.id,
        summary=summary,
        detail={"event": subscription.event_name, "status": subscription.status, **(detail or {})},
    )


def subscription_broadcast(subscription: Subscription) -> None:
    """Lists (a new row, a row gone from a filter) and the detail page re-read
    themselves."""
    broadcast_topics(
        topics=["subscriptions", f"subscription:{subscription.id}"],
        host_id=subscription.host_id,
        user_id=subscription.user_id,
    )


def subscription_broadcast_soon(subscription: Subscription) -> None:
    """``subscription_broadcast`` for what comes in bursts (polled and
    streamed events): coalesced, within half a second."""
    broadcast_topics_coalesced(
        topics=["subscriptions", f"subscription:{subscription.id}"],
        host_id=subscription.host_id,
        user_id=subscription.user_id,
    )


def host_data(subscription: Subscription) -> dict[str, Any]:
    """The ``subscription_id, user, server`` head of every subscription delivery."""
    return {
        "subscription_id": subscription.id,
        "user": subscription.user.external_id,
        "server": subscription.server_id,
    }


def status_changed(
    subscription: Subscription,
    *,
    previous: str,
    actor: Actor,
    reason: str = "",
    summary: str | None = None,
) -> None:
    """After ``subscription.status`` changed and was saved, inside the
    transaction: ledger, ``subscription.updated`` to the host, live pages."""
    if previous == subscription.status:
        subscription_broadcast(subscription)
        return
    data = {**host_data(subscription), "status": subscription.status, "previous_status": previous}
    if reason:
        data["reason"] = reason
    subscription_emit(subscription, type="subscription.updated", data=data)
    subscription_record(
        subscription,
        kind=subscription.status,
        actor=actor,
        summary=summary
        or f"Subscription to {subscription.event_name} on {subscription.server.name}: "
        f"{previous} → {subscription.status}"
        + (f" ({reason})" if reason else ""),
        detail={"previous_status": previous, "reason": reason},
    )
    subscription_broadcast(subscription)


def running_status(subscription: Subscription) -> str:
    """The status of a subscription the server holds and we keep alive."""
    return SubscriptionStatus.PAUSED if subscription.paused_at else SubscriptionStatus.ACTIVE
