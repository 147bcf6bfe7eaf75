"""Creating subscriptions: checking what the host asks, choosing how it is
delivered, and starting it when consent allows (``lifecycle`` pauses, ends
and reacts to consent changes).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import jsonschema
from django.conf import settings
from django.utils import timezone

from consent.models import Scope
from consent.selectors import events_grant_covering, grant_is_live, host_policy_get
from outbox.signing import receiver_token_new, webhook_secret_new
from subscriptions.models import LIVE_STATUSES, Mode, Subscription, SubscriptionStatus
from subscriptions.services.channels import channel_parse, channel_schedule
from subscriptions.services.common import (
    arguments_key,
    subscription_broadcast,
    subscription_record,
)
from subscriptions.services.filters import expires_at_check, filter_parse
from subscriptions.services.handlers import handler_check
from subscriptions.services.mcpe_limits import mcpe_default_expiry, mcpe_limits_check
from subscriptions.services.modes import delivery_mode_choose, delivery_start
from switchboard.actors import Actor
from switchboard.errors import Forbidden, Invalid
from switchboard.models import EventType, McpServer, User
from switchboard.once import found_or_created
from switchboard.patterns import patterns_covered
from switchboard.services.server_block import server_block_refuse


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


def server_allowed(server: McpServer) -> None:
    """Not blocked, and allowed by the host's policy (as consent requires)."""
    if not host_policy_get(host_id=server.host_id).allows_server(server.id):
        raise Forbidden(
            "this host's policy does not allow this server",
            field="server",
            code="server_not_allowed",
        )
    server_block_refuse(server)


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
    cursor: str | None = None,
) -> tuple[Subscription, bool]:
    """Create a subscription, or return the live one with the same key.

    Returns ``(subscription, created)``. Without a live ``events`` grant for
    this event type it waits in ``pending_consent`` and nothing is sent.
    ``ttl_ms``: ``...`` (absent) = the SUBSCRIPTION_TTL setting, None = ask
    for no expiry. ``cursor``: where a new one starts (a task event source's
    ``initialCursor``); None = from now.
    """
    server_allowed(server)
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
    if ttl_ms is ...:
        ttl_ms = int(settings.SUBSCRIPTION_TTL * 1000)
    return _create_once(
        user=user,
        server=server,
        event=event,
        key=arguments_key(arguments),
        arguments=arguments,
        mode=mode,
        ttl_ms=ttl_ms,
        max_age_ms=max_age_ms,
        actor=actor,
        filter=stored_filter,
        expires_at=expires_at,
        channel=stored_channel,
        cursor=cursor,
    )


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
    answers the live one; a new one is held to the limits (``mcpe_limits``)
    and, without ``expires_at``, ends after MCPE_DEFAULT_TTL."""
    server_allowed(server)
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
    mcpe_limits_check(user=user, server=server, actor=actor)
    if expires_at is None:  # the host did not bound it: MCPE_DEFAULT_TTL does
        expires_at = mcpe_default_expiry()
    return _create_once(
        user=user,
        server=server,
        event="",
        key=key,
        arguments={},
        mode=Mode.MCPE,
        ttl_ms=None,
        max_age_ms=None,
        actor=actor,
        filter=stored_filter,
        expires_at=expires_at,
        channel=stored_channel,
        handler=stored_handler,
    )


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


def _create_once(
    *, user: User, server: McpServer, event: str, key: str, **fields: Any
) -> tuple[Subscription, bool]:
    """The live subscription with this (user, server, event, key), or a new
    one (``created`` True). A concurrent create of the same key answers with
    the one that won (the database's one-live-per-key constraint)."""
    return found_or_created(
        lambda: _live_with_key(user=user, server=server, event=event, key=key),
        lambda: _create(user=user, server=server, event=event, key=key, **fields),
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
    cursor: str | None = None,
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
        cursor=cursor,
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
        summary=f"Subscription to {subscription.subject} on {server.name} created"
        + ("" if allowed else "; waiting for the user's consent"),
        detail={
            "arguments": arguments,
            "mode": mode,
            **({"filter": filter} if filter else {}),
            **({"expires_at": expires_at.isoformat()} if expires_at else {}),
            **({"channel": channel} if channel else {}),
            **({"handler_type": handler["type"]} if handler else {}),
            **({"cursor": cursor} if cursor is not None else {}),
        },
    )
    subscription_broadcast(subscription)
    if allowed:
        delivery_start(subscription)
    return subscription
