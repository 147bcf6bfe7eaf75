"""Limits on MCPE subscriptions (docs/host-integration.md "MCPE servers"; the MCPE
proposal's security advice: rate limits, default lifetimes).

- ``mcpe_limits_check``: before a new MCPE subscription is made, the
  server's advertised ``maxSubscriptions`` per (user, server) (409
  ``server_limit``, the server is not called) and
  MCPE_MAX_SUBSCRIPTIONS_PER_USER across servers (409 ``user_limit``).
- ``mcpe_default_expiry``: MCPE_DEFAULT_TTL from now, for a subscription the
  host does not bound.
- ``mcpe_events_allowed``: how many of a burst of events may be forwarded
  this minute under MCPE_MAX_EVENTS_PER_MINUTE (a counter per user and
  minute in the shared cache, so every process counts against one budget).

Every refusal is a ledger entry (``subscription.limit_refused``) naming
the limit.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from subscriptions.models import LIVE_STATUSES, Mode, Subscription
from switchboard.actors import Actor
from switchboard.errors import Conflict
from switchboard.mcp.mcpe import mcpe_max_subscriptions
from switchboard.models import McpServer, User
from switchboard.services.audit import audit_record


def _refuse(*, user: User, server: McpServer, actor: Actor, code: str, message: str) -> None:
    audit_record(
        host_id=server.host_id,
        kind="subscription.limit_refused",
        actor=actor,
        user=user,
        server_id=server.id,
        subject_type="server",
        subject_id=server.id,
        summary=f"An MCPE subscription on {server.name} was refused: {message}",
        detail={"code": code, "message": message},
    )
    raise Conflict(message, code=code)


def mcpe_limits_check(*, user: User, server: McpServer, actor: Actor) -> None:
    """Raise 409 when one more live MCPE subscription would pass a limit.
    Subscriptions waiting for consent count: they will be made on the server
    once it is given."""
    live = Subscription.objects.filter(user=user, mode=Mode.MCPE, status__in=LIVE_STATUSES)
    server_max = mcpe_max_subscriptions((server.capabilities or {}).get("mcpe"))
    if server_max is not None and live.filter(server=server).count() >= server_max:
        _refuse(
            user=user,
            server=server,
            actor=actor,
            code="server_limit",
            message=f"{server.name} takes at most {server_max} subscriptions per session "
            f"(its maxSubscriptions); {user.external_id} has {server_max} there already",
        )
    user_max = settings.MCPE_MAX_SUBSCRIPTIONS_PER_USER
    if user_max and live.count() >= user_max:
        _refuse(
            user=user,
            server=server,
            actor=actor,
            code="user_limit",
            message=f"{user.external_id} has {user_max} live MCPE subscriptions, the most "
            f"MCPE_MAX_SUBSCRIPTIONS_PER_USER allows",
        )


def mcpe_default_expiry() -> datetime | None:
    ttl = settings.MCPE_DEFAULT_TTL
    return timezone.now() + timedelta(seconds=ttl) if ttl else None


def mcpe_events_allowed(*, user_id: str, count: int) -> int:
    """How many of ``count`` events may still be forwarded for this user this
    minute (all of them without a limit)."""
    limit = settings.MCPE_MAX_EVENTS_PER_MINUTE
    if not limit or count <= 0:
        return count
    key = f"mcpe-events:{user_id}:{int(time.time() // 60)}"
    cache.add(key, 0, timeout=120)
    try:
        used = cache.incr(key, count)
    except ValueError:  # expired between add and incr: a fresh minute
        cache.set(key, count, timeout=120)
        used = count
    before = used - count
    return max(0, min(count, limit - before))


EVENTS_LIMIT_MESSAGE = (
    "{dropped} MCPE event(s) for {user} were not forwarded: more than "
    "MCPE_MAX_EVENTS_PER_MINUTE ({limit}) in one minute"
)
