"""Creating, pausing, rotating and ending subscriptions; reacting to consent.

Network calls never happen inside a transaction: a service commits the
state change (so the receiver already answers accordingly) and the MCP call
runs after commit — in a Celery task, or right after the transaction for the
API's revoke.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

import jsonschema
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from consent.models import GrantStatus, Scope
from consent.selectors import events_grant_covering, grant_is_live
from outbox.services import held_deliveries_release, stream_payloads_erase
from outbox.signing import receiver_token_new, webhook_secret_new
from subscriptions.models import (
    LIVE_STATUSES,
    RUNNING_STATUSES,
    Mode,
    ReceivedEvent,
    Subscription,
    SubscriptionStatus,
    UnsubscribeState,
)
from subscriptions.services.channels import channel_parse, channel_schedule
from subscriptions.services.common import (
    arguments_key,
    status_changed,
    subscription_broadcast,
    subscription_record,
)
from subscriptions.services.filters import expires_at_check, filter_parse
from subscriptions.services.handlers import handler_check
from subscriptions.services.modes import delivery_mode_choose, delivery_start, delivery_stop
from subscriptions.services.unsubscribe import subscription_unsubscribe, unsubscribe_owed
from switchboard.actors import Actor
from switchboard.errors import Conflict, Invalid
from switchboard.models import EventType, McpServer, User
from switchboard.patterns import pattern_in_words, patterns_covered
from switchboard.queue import enqueue

log = logging.getLogger(__name__)
SYSTEM_EXPIRY = Actor.system("subscriptions")

# --- creating ------------------------------------------------------------------


def event_type_for(*, server: McpServer, name: str) -> EventType:
    event_type = EventType.objects.filter(server=server, name=name, removed_at__isnull=True).first()
    if event_type is None:
        raise Invalid(
            f"{server.name} offers no event type {name!r}", field="event", code="unknown_event"
        )
    return event_type


def arguments_validate(*, event_type: EventType, arguments: dict[str, Any]) -> None:
    """422 naming the first offending field when ``arguments`` fail ``inputSchema``."""
    schema = event_type.input_schema or {}
    try:
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
    except jsonschema.SchemaError:
        raise Invalid(
            "the server's inputSchema for this event type is not valid JSON Schema",
            field="event",
            code="invalid_input_schema",
        ) from None
    error = jsonschema.exceptions.best_match(validator_class(schema).iter_errors(arguments))
    if error is not None:
        path = ".".join(str(part) for part in error.absolute_path)
        if error.validator == "required" and isinstance(error.validator_value, list):
            missing = [n for n in error.validator_value if n not in (error.instance or {})]
            path = ".".join(filter(None, [path, missing[0] if missing else ""]))
        elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
            allowed = set((error.schema or {}).get("properties", {}))
            extra = sorted(set(error.instance) - allowed)
            path = ".".join(filter(None, [path, extra[0] if extra else ""]))
        field = "arguments" + (f".{path}" if path else "")
        raise Invalid(f"{field}: {error.message[:300]}", field=field, code="invalid_arguments")


def subscription_create(
    *,
    user: User,
    server: McpServer,
    event: str,
    actor: Actor,
    arguments: dict[str, Any] | None = None,
    delivery: str = "auto",
    ttl_ms: int | None | Any = ...,
    max_age_ms: int | None = None,
    filter: dict[str, Any] | None = None,
    expires_at: datetime | None = None,
    channel: dict[str, Any] | None = None,
) -> tuple[Subscription, bool]:
    """Create a subscription, or return the live one with the same key.

    Returns ``(subscription, created)``. Without a live ``events`` grant for
    this event type it waits in ``pending_consent`` and nothing is sent.
    ``ttl_ms``: ``...`` (absent) = the SUBSCRIPTION_TTL setting, None = ask
    for no expiry.
    """
    arguments = arguments or {}
    if server.host_id != user.host_id:
        raise Invalid("the server belongs to another host", field="server")
    if not server.url:
        raise Invalid(
            "the console can only subscribe on servers it reaches itself (this one has no url)",
            field="server",
            code="unsupported_delivery_mode",
        )
    event_type = event_type_for(server=server, name=event)
    arguments_validate(event_type=event_type, arguments=arguments)
    stored_filter = filter_parse(filter)
    expires_at_check(expires_at)
    stored_channel = channel_parse(channel)
    mode = delivery_mode_choose(offered=event_type.delivery, requested=delivery)
    key = arguments_key(arguments)
    existing = _live_with_key(user=user, server=server, event=event, key=key)
    if existing is not None:
        return existing, False
    if ttl_ms is ...:
        ttl_ms = int(settings.SUBSCRIPTION_TTL * 1000)
    try:
        with transaction.atomic():
            subscription = _create(
                user=user,
                server=server,
                event=event,
                arguments=arguments,
                key=key,
                mode=mode,
                ttl_ms=ttl_ms,
                max_age_ms=max_age_ms,
                actor=actor,
                filter=stored_filter,
                expires_at=expires_at,
                channel=stored_channel,
            )
    except IntegrityError:
        # A concurrent create won the (user, server, event, arguments) key.
        existing = _live_with_key(user=user, server=server, event=event, key=key)
        if existing is None:
            raise
        return existing, False
    return subscription, True


def _patterns_text(filter: dict[str, Any]) -> str:
    patterns = filter.get("event_types") or ["*"]
    return ", ".join(pattern_in_words(p) for p in patterns)


def subscription_create_mcpe(
    *,
    user: User,
    server: McpServer,
    actor: Actor,
    filter: dict[str, Any] | None = None,
    expires_at: datetime | None = None,
    channel: dict[str, Any] | None = None,
    handler: dict[str, Any] | None = None,
) -> tuple[Subscription, bool]:
    """A subscription on an MCPE server (no event: the filter says what),
    made by the session worker over the session it holds for this user and
    server (``services.mcpe``). The same filter, channel and expiry again
    answers the live one."""
    if server.host_id != user.host_id:
        raise Invalid("the server belongs to another host", field="server")
    if not (server.capabilities or {}).get("mcpe"):
        raise Invalid("event is required: this server is not an MCPE server", field="event")
    stored_filter = filter_parse(filter)
    expires_at_check(expires_at)
    stored_channel = channel_parse(channel)
    stored_handler = handler_check(handler=handler, server=server, user=user, actor=actor)
    arguments: dict[str, Any] = {
        "filter": stored_filter,
        "channel": stored_channel,
        "handler": stored_handler,
    }
    if expires_at is not None:
        arguments["expires_at"] = expires_at.isoformat()
    key = arguments_key(arguments)
    existing = _live_with_key(user=user, server=server, event="", key=key)
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            subscription = _create(
                user=user,
                server=server,
                event="",
                arguments={},
                key=key,
                mode=Mode.MCPE,
                ttl_ms=None,
                max_age_ms=None,
                actor=actor,
                filter=stored_filter,
                expires_at=expires_at,
                channel=stored_channel,
                handler=stored_handler,
            )
    except IntegrityError:
        existing = _live_with_key(user=user, server=server, event="", key=key)
        if existing is None:
            raise
        return existing, False
    return subscription, True


def consent_allows(subscription: Subscription, approved: list[str] | None = None) -> bool:
    """Whether the live grant (or ``approved``, the grant's event types)
    allows it: its event type, or for MCPE every pattern of its filter."""
    if subscription.mode == Mode.MCPE:
        patterns = (subscription.filter or {}).get("event_types") or []
        if approved is not None:
            return not patterns_covered(patterns or ["*"], approved)
        return (
            events_grant_covering(
                user=subscription.user_id, server_id=subscription.server_id, patterns=patterns
            )
            is not None
        )
    if approved is not None:
        return subscription.event_name in approved
    return (
        grant_is_live(
            user=subscription.user_id,
            server_id=subscription.server_id,
            scope=Scope.EVENTS,
            event_type=subscription.event_name,
        )
        is not None
    )


def _live_with_key(*, user: User, server: McpServer, event: str, key: str) -> Subscription | None:
    return (
        Subscription.objects.select_related("server", "user")
        .filter(
            user=user,
            server=server,
            event_name=event,
            arguments_key=key,
            status__in=LIVE_STATUSES,
        )
        .first()
    )


def _create(
    *,
    user: User,
    server: McpServer,
    event: str,
    arguments: dict[str, Any],
    key: str,
    mode: str,
    ttl_ms: int | None,
    max_age_ms: int | None,
    actor: Actor,
    filter: dict[str, list[str]],
    expires_at: datetime | None,
    channel: dict[str, Any],
    handler: dict[str, Any] | None = None,
) -> Subscription:
    subscription = Subscription(
        host_id=user.tenant_id,
        user=user,
        server=server,
        event_name=event,
        arguments=arguments,
        arguments_key=key,
        mode=mode,
        token=receiver_token_new(),
        ttl_ms=ttl_ms,
        max_age_ms=max_age_ms,
        filter=filter,
        expires_at=expires_at,
        channel=channel,
        handler=handler or {},
    )
    allowed = consent_allows(subscription)
    subscription.status = (
        SubscriptionStatus.PENDING if allowed else SubscriptionStatus.PENDING_CONSENT
    )
    channel_schedule(subscription, now=timezone.now())
    subscription.secret = webhook_secret_new()
    subscription.save(force_insert=True)
    subscription_record(
        subscription,
        kind="created",
        actor=actor,
        summary=f"Subscription to {event or _patterns_text(filter)} on {server.name} created"
        + ("" if allowed else "; waiting for the user's consent"),
        detail={
            "arguments": arguments,
            "mode": mode,
            **({"filter": filter} if filter else {}),
            **({"expires_at": expires_at.isoformat()} if expires_at else {}),
            **({"channel": channel} if channel else {}),
            **({"handler_type": handler["type"]} if handler else {}),
        },
    )
    subscription_broadcast(subscription)
    if allowed:
        delivery_start(subscription)
    return subscription


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
    actor = Actor.system("consent")
    subs = Subscription.objects.select_for_update().select_related("server", "user")
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


def _mark_revoked(subscription: Subscription, *, actor: Actor, reason: str) -> None:
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
            Subscription.objects.select_for_update()
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


def subscriptions_erase_user(*, user: User, actor: Actor) -> int:
    """For user deletion: revoke every live subscription of the user and erase
    the event payloads kept for them (received bodies, and the event data in
    deliveries not yet sent, which are cancelled)."""
    with transaction.atomic():
        subs = list(
            Subscription.objects.select_for_update()
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
        Subscription.objects.select_for_update()
        .select_related("server", "user")
        .get(pk=subscription.pk)
    )


@transaction.atomic
def subscription_pause(*, subscription: Subscription, actor: Actor) -> Subscription:
    """Keep it alive on the server, hold forwarding to the host."""
    sub = _locked(subscription)
    if sub.status not in LIVE_STATUSES:
        raise Conflict(f"a {sub.status} subscription cannot be paused", code="not_live")
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
    fields = [
        "secret_encrypted",
        "previous_secret_encrypted",
        "previous_secret_until",
        "updated_at",
    ]
    if sub.status in RUNNING_STATUSES:
        sub.next_refresh_at = now
        fields.append("next_refresh_at")
    sub.save(update_fields=fields)
    subscription_record(
        sub,
        kind="secret_rotated",
        actor=actor,
        summary=f"Signing secret of {sub.event_name} rotated; the old one verifies until "
        f"{sub.previous_secret_until:%Y-%m-%d %H:%M:%S} UTC",
    )
    if sub.status in RUNNING_STATUSES:
        enqueue("subscriptions.refresh_subscription", sub.id)
    return sub


__all__ = [
    "arguments_validate",
    "subscription_create",
    "subscription_pause",
    "subscription_resume",
    "subscription_revoke",
    "subscription_rotate_secret",
    "subscriptions_erase_user",
    "subscriptions_on_grant_change",
]
