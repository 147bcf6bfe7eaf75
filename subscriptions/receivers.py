"""Subscriptions' part in what the core announces (``switchboard.signals``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Count, Max

from consent.models import Grant
from subscriptions.models import LIVE_STATUSES, ReceivedEvent, ReceivedKind, Subscription
from subscriptions.selectors import subscriptions_live_of_user
from subscriptions.services import (
    subscriptions_erase_user,
    subscriptions_on_grant_change,
    subscriptions_on_server_blocking,
)
from switchboard.actors import Actor
from switchboard.models import McpServer, User
from switchboard.retiring import plural


def erase_user(*, user: User, actor: Actor, **_: Any) -> None:
    """Unsubscribe, erase received payloads and unsent event data. Safe
    whether consent was revoked first or not: it erases by user."""
    subscriptions_erase_user(user=user, actor=actor)


def grant_changed(*, grant: Grant, previous_status: str | None, **_: Any) -> None:
    """Subscriptions start and stop with their ``events`` grant."""
    subscriptions_on_grant_change(grant=grant, previous_status=previous_status)


def server_blocking(*, server: McpServer, actor: Actor, **_: Any) -> dict[str, int]:
    """The kill switch: every live subscription of the server ends."""
    return {"subscriptions_revoked": subscriptions_on_server_blocking(server=server, actor=actor)}


def subscriptions_for_card(user: User, server_ids: list[str]) -> dict[str, list[Any]]:
    """The user's live subscriptions per server, for consent's server cards."""
    found: dict[str, list[Any]] = {}
    for sub in subscriptions_live_of_user(user=user, server_ids=server_ids):
        found.setdefault(sub.server_id, []).append(sub)
    return found


def subscriptions_of_server(server: McpServer) -> str:
    """For the removal confirmation: the live subscriptions that end."""
    count = Subscription.objects.filter(server=server, status__in=LIVE_STATUSES).count()
    return f"{plural(count, 'live event subscription')} (ended)" if count else ""


def event_deliveries(
    user: User, server_ids: list[str], since: datetime
) -> dict[str, tuple[int, datetime | None]]:
    """For the user's connections (``consent.connections``): the events each
    server delivered to the user's subscriptions since ``since``, and the last."""
    rows = (
        ReceivedEvent.objects.filter(
            subscription__user=user,
            subscription__server_id__in=server_ids,
            kind=ReceivedKind.EVENT,
            received_at__gte=since,
        )
        .values_list("subscription__server_id")
        .annotate(calls=Count("id"), last=Max("received_at"))
        .order_by()
    )
    return {server_id: (calls, last) for server_id, calls, last in rows}
