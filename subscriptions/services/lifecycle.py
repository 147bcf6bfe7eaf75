"""Pausing, rotating and ending subscriptions; reacting to consent (creating
is ``creation``).

Network calls never happen inside a transaction: a service commits the
state change (so the receiver already answers accordingly) and the MCP call
runs after commit — in a Celery task, or right after the transaction for the
API's revoke.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from consent.models import GrantStatus, Scope
from outbox.services import (
    held_deliveries_release,
    stream_events_withdraw,
    stream_payloads_erase,
)
from outbox.signing import webhook_secret_new
from subscriptions.models import (
    LIVE_STATUSES,
    RUNNING_STATUSES,
    Mode,
    ReceivedEvent,
    Subscription,
    SubscriptionStatus,
    UnsubscribeState,
)
from subscriptions.services.common import (
    due_now,
    status_changed,
    subscription_record,
)
from subscriptions.services.creation import consent_allows
from subscriptions.services.modes import delivery_start, delivery_stop
from subscriptions.services.unsubscribe import subscription_unsubscribe, unsubscribe_owed
from switchboard.actors import Actor
from switchboard.errors import Conflict
from switchboard.mcp.mcpe import mcpe_can_pause
from switchboard.models import McpServer, User

log = logging.getLogger(__name__)
SYSTEM_EXPIRY = Actor.system("subscriptions")

# --- consent -------------------------------------------------------------------


def subscriptions_on_grant_change(*, grant, previous_status: str | None = None) -> None:
    """React to a grant change inside its transaction (``consent.signals.grant_changed``).

    An ``events`` grant that is active starts the user's pending subscriptions
    on that server for the approved event types and revokes running ones for
    types no longer approved; any other status (revoked, expired, suspended,
    denied) revokes — and unsubscribes — every running one.
    """
    if grant.scope != Scope.EVENTS:
        return
    if grant.status != GrantStatus.ACTIVE and grant.server.blocked_at is not None:
        return  # the kill switch revokes them itself (subscriptions_on_server_blocking)
    actor = Actor.system("consent")
    subs = Subscription.objects.select_for_update(no_key=True).select_related("server", "user")
    mine = subs.filter(user_id=grant.user_id, server_id=grant.server_id)
    if grant.status == GrantStatus.ACTIVE:
        approved = list(grant.approved_event_types or [])
        start = [
            s
            for s in mine.filter(status=SubscriptionStatus.PENDING_CONSENT)
            if consent_allows(s, approved)
        ]
        for sub in start:
            sub.status = SubscriptionStatus.PENDING
            sub.save(update_fields=["status", "updated_at"])
            status_changed(
                sub,
                previous=SubscriptionStatus.PENDING_CONSENT,
                actor=actor,
                reason="consent_given",
            )
            delivery_start(sub)
        dropped = [
            s for s in mine.filter(status__in=RUNNING_STATUSES) if not consent_allows(s, approved)
        ]
        _revoke_many(dropped, actor=actor, reason="event_type_not_approved")
        return
    if grant.status == GrantStatus.PENDING:
        return
    _revoke_many(
        list(mine.filter(status__in=RUNNING_STATUSES)),
        actor=actor,
        reason=f"consent_{grant.status}",
    )


# --- ending --------------------------------------------------------------------


def _revoke_many(subscriptions: list[Subscription], *, actor: Actor, reason: str) -> None:
    for subscription in subscriptions:
        if subscription.mode == Mode.MCPE and subscription.remote_id:
            subscription.unsubscribe_state = UnsubscribeState.PENDING
            subscription.save(update_fields=["unsubscribe_state", "updated_at"])
        _mark_revoked(subscription, actor=actor, reason=reason)
    unsubscribe_owed([s.id for s in subscriptions if s.mode == Mode.WEBHOOK])


def _consent_gone(reason: str) -> bool:
    """Revoked because the user's consent no longer covers it or the server
    is blocked (not because the host or its expiry ended it)."""
    return reason.startswith("consent_") or reason in {"event_type_not_approved", "server_blocked"}


def _mark_revoked(subscription: Subscription, *, actor: Actor, reason: str) -> None:
    if _consent_gone(reason):
        # Received but not yet forwarded: forwarded only while consent
        # holds, so a revoke or a block between receipt and forward stops
        # them (the same rule as ``consent.enforce`` before a call leaves).
        stream_events_withdraw(streams=[subscription.id], reason=reason)
    previous = subscription.status
    subscription.status = SubscriptionStatus.REVOKED
    subscription.ended_at = timezone.now()
    subscription.next_refresh_at = None
    subscription.next_poll_at = None
    subscription.save(
        update_fields=["status", "ended_at", "next_refresh_at", "next_poll_at", "updated_at"]
    )
    status_changed(subscription, previous=previous, actor=actor, reason=reason)
    delivery_stop(subscription)


def subscription_revoke(
    *,
    subscription: Subscription,
    actor: Actor,
    reason: str = "revoked",
    unsubscribe_now: bool = True,
) -> Subscription:
    """Stop it: later deliveries get 410 at once (committed first), then
    ``events/unsubscribe`` — now, or by a task when ``unsubscribe_now`` is
    False or the call fails."""
    with transaction.atomic():
        sub = (
            Subscription.objects.select_for_update(no_key=True)
            .select_related("server", "user")
            .get(pk=subscription.pk)
        )
        if sub.status not in LIVE_STATUSES:
            return sub
        # Only webhook subscriptions live on the server (poll and push end here);
        # an MCPE one is taken down by the session that holds it.
        was_running = sub.status in RUNNING_STATUSES and sub.mode == Mode.WEBHOOK
        if sub.mode == Mode.MCPE and sub.remote_id:
            sub.unsubscribe_state = UnsubscribeState.PENDING
            sub.save(update_fields=["unsubscribe_state", "updated_at"])
        _mark_revoked(sub, actor=actor, reason=reason)
        if was_running:
            unsubscribe_owed([sub.id], caller_tries_first=unsubscribe_now)
    # Tried at once; a failure is retried with backoff (still owed, shown).
    if was_running and unsubscribe_now:
        subscription_unsubscribe(subscription_id=sub.id)
        sub.refresh_from_db()
    return sub


def subscriptions_expire_due(*, limit: int = 500) -> int:
    """Beat: revoke live subscriptions whose ``expires_at`` has come (the host
    gets ``subscription.updated`` with ``reason: "expired_at"``)."""
    due = list(
        Subscription.objects.filter(expires_at__lte=timezone.now(), status__in=LIVE_STATUSES)
        .order_by("expires_at")
        .values_list("pk", flat=True)[:limit]
    )
    for pk in due:
        subscription_revoke(
            subscription=Subscription(pk=pk), actor=SYSTEM_EXPIRY, reason="expired_at"
        )
    return len(due)


def subscriptions_on_server_blocking(*, server: McpServer, actor: Actor) -> int:
    """The kill switch: revoke every live subscription of the server (those
    running on it are unsubscribed there by the unsubscribe task; held
    streams and MCPE sessions close). Returns how many."""
    subs = list(
        Subscription.objects.select_for_update(no_key=True)
        .select_related("server", "user")
        .filter(server=server, status__in=LIVE_STATUSES)
    )
    # Only webhook subscriptions that ran live on the server (poll and push
    # end here; an MCPE one is taken down by the session that holds it).
    on_server = [s.id for s in subs if s.status in RUNNING_STATUSES and s.mode == Mode.WEBHOOK]
    for sub in subs:
        if sub.mode == Mode.MCPE and sub.remote_id:
            sub.unsubscribe_state = UnsubscribeState.PENDING
            sub.save(update_fields=["unsubscribe_state", "updated_at"])
        _mark_revoked(sub, actor=actor, reason="server_blocked")
    unsubscribe_owed(on_server)
    return len(subs)


def subscriptions_erase_user(*, user: User, actor: Actor) -> int:
    """For user deletion: revoke every live subscription of the user and erase
    the event payloads kept for them (received bodies, and the event data in
    deliveries not yet sent, which are cancelled)."""
    with transaction.atomic():
        subs = list(
            Subscription.objects.select_for_update(no_key=True)
            .select_related("server", "user")
            .filter(user=user, status__in=LIVE_STATUSES)
        )
        running = [s for s in subs if s.status in RUNNING_STATUSES and s.mode == Mode.WEBHOOK]
        for sub in subs:
            _mark_revoked(sub, actor=actor, reason="user_deleted")
        unsubscribe_owed([s.id for s in running])
        ReceivedEvent.objects.filter(subscription__user=user).delete()
        stream_payloads_erase(
            streams=list(Subscription.objects.filter(user=user).values_list("id", flat=True)),
            reason="user_deleted",
        )
        return len(subs)


# --- pausing and rotating ------------------------------------------------------


def _locked(subscription: Subscription) -> Subscription:
    return (
        Subscription.objects.select_for_update(no_key=True)
        .select_related("server", "user")
        .get(pk=subscription.pk)
    )


def _pausable(sub: Subscription) -> None:
    """An MCPE server without pause (no ``events_pause``/``events_resume``
    tools, or ``features.pause: false``) is never asked to."""
    if sub.mode == Mode.MCPE and not mcpe_can_pause((sub.server.capabilities or {}).get("mcpe")):
        raise Conflict(
            f"{sub.server.name} has no events_pause/events_resume tools: its subscriptions "
            "cannot be paused or resumed (revoke it, or narrow its filter, instead)",
            code="not_supported",
        )


@transaction.atomic
def subscription_pause(*, subscription: Subscription, actor: Actor) -> Subscription:
    """Keep it alive on the server, hold forwarding to the host."""
    sub = _locked(subscription)
    if sub.status not in LIVE_STATUSES:
        raise Conflict(f"a {sub.status} subscription cannot be paused", code="not_live")
    _pausable(sub)
    if sub.paused_at:
        return sub
    previous = sub.status
    sub.paused_at = timezone.now()
    if sub.status == SubscriptionStatus.ACTIVE:
        sub.status = SubscriptionStatus.PAUSED
    sub.save(update_fields=["paused_at", "status", "updated_at"])
    status_changed(sub, previous=previous, actor=actor, reason="paused")
    if sub.mode != Mode.WEBHOOK:
        delivery_stop(sub)  # poll and push fetch nothing while paused
    if previous == sub.status:
        subscription_record(
            sub, kind="paused", actor=actor, summary=f"Forwarding of {sub.event_name} paused"
        )
    return sub


@transaction.atomic
def subscription_resume(*, subscription: Subscription, actor: Actor) -> Subscription:
    """Forward again, starting with what was held, in arrival order."""
    sub = _locked(subscription)
    _pausable(sub)
    if not sub.paused_at:
        return sub
    previous = sub.status
    sub.paused_at = None
    if sub.status == SubscriptionStatus.PAUSED:
        sub.status = SubscriptionStatus.ACTIVE
    sub.save(update_fields=["paused_at", "status", "updated_at"])
    status_changed(sub, previous=previous, actor=actor, reason="resumed")
    if sub.mode != Mode.WEBHOOK and sub.status in RUNNING_STATUSES:
        delivery_start(sub)  # from the stored cursor
    if previous == sub.status:
        subscription_record(
            sub, kind="resumed", actor=actor, summary=f"Forwarding of {sub.event_name} resumed"
        )

    held_deliveries_release(host_id=sub.host_id, stream=sub.id)
    return sub


@transaction.atomic
def subscription_rotate_secret(*, subscription: Subscription, actor: Actor) -> Subscription:
    """A fresh secret, sent on an immediate refresh; the old one keeps
    verifying for SUBSCRIPTION_SECRET_GRACE."""
    sub = _locked(subscription)
    if sub.status not in LIVE_STATUSES:
        raise Conflict(f"a {sub.status} subscription has no secret to rotate", code="not_live")
    if sub.mode != Mode.WEBHOOK:
        raise Conflict(
            f"a {sub.mode} subscription has no signing secret (only webhook deliveries are signed)",
            code="no_secret",
        )
    now = timezone.now()
    sub.previous_secret_encrypted = sub.secret_encrypted
    sub.previous_secret_until = now + timedelta(seconds=settings.SUBSCRIPTION_SECRET_GRACE)
    sub.secret = webhook_secret_new()
    sub.save(
        update_fields=[
            "secret_encrypted",
            "previous_secret_encrypted",
            "previous_secret_until",
            "updated_at",
        ]
    )
    subscription_record(
        sub,
        kind="secret_rotated",
        actor=actor,
        summary=f"Signing secret of {sub.event_name} rotated; the old one verifies until "
        f"{sub.previous_secret_until:%Y-%m-%d %H:%M:%S} UTC",
    )
    if sub.status in RUNNING_STATUSES:
        due_now(sub.id, field="next_refresh_at")
    return sub


__all__ = [
    "subscription_pause",
    "subscription_resume",
    "subscription_revoke",
    "subscription_rotate_secret",
    "subscriptions_erase_user",
    "subscriptions_on_grant_change",
]
