"""Reads of the subscriptions app, always scoped to the caller: a host's API
key, a signed-in user (their own), or a host's staff. Foreign or unknown ids
are a 404 before any work."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from subscriptions.models import (
    LIVE_STATUSES,
    DeliveryAttempt,
    HostDelivery,
    ReceivedEvent,
    RefreshAttempt,
    Subscription,
)
from switchboard.errors import NotFound
from switchboard.models import Host, User


def _not_found(subscription_id: str) -> NotFound:
    return NotFound(
        f"no subscription {subscription_id!r} for this host",
        field="subscription_id",
        code="subscription_not_found",
    )


def subscriptions_for_host(
    *,
    host: Host | str,
    user_id: str | None = None,
    server_id: str | None = None,
    status: str | None = None,
    event: str | None = None,
) -> QuerySet[Subscription]:
    host_id = host if isinstance(host, str) else host.id
    rows = Subscription.objects.filter(host_id=host_id).select_related("user", "server")
    if user_id is not None:
        rows = rows.filter(user_id=user_id)
    if server_id:
        rows = rows.filter(server_id=server_id)
    if status:
        rows = rows.filter(status=status)
    if event:
        rows = rows.filter(event_name=event)
    return rows


def subscription_get_for_host(*, host: Host | str, subscription_id: str) -> Subscription:
    host_id = host if isinstance(host, str) else host.id
    sub = (
        Subscription.objects.select_related("user", "server")
        .filter(host_id=host_id, pk=subscription_id)
        .first()
    )
    if sub is None:
        raise _not_found(subscription_id)
    return sub


def subscriptions_of_user(*, user: User) -> QuerySet[Subscription]:
    return Subscription.objects.filter(user=user).select_related("server", "user")


def subscriptions_live_of_user(*, user: User, server_ids: list[str]) -> QuerySet[Subscription]:
    return Subscription.objects.filter(
        user=user, server_id__in=server_ids, status__in=LIVE_STATUSES
    ).order_by("event_name")


def subscription_get_for_viewer(*, viewer: User, subscription_id: str) -> Subscription:
    """The user's own subscription, or any of the host's for its staff."""
    rows = Subscription.objects.select_related("user", "server").filter(
        host_id=viewer.host_id, pk=subscription_id
    )
    if not viewer.is_host_staff:
        rows = rows.filter(user=viewer)
    sub = rows.first()
    if sub is None:
        raise _not_found(subscription_id)
    return sub


def may_see_payloads(*, viewer: User, subscription: Subscription) -> bool:
    """Payload bodies: the user concerned and auditors; not admins."""
    return viewer.id == subscription.user_id or viewer.role == "auditor"


def received_of(*, subscription: Subscription) -> QuerySet[ReceivedEvent]:
    return ReceivedEvent.objects.filter(subscription=subscription)


def refreshes_of(*, subscription: Subscription) -> QuerySet[RefreshAttempt]:
    return RefreshAttempt.objects.filter(subscription=subscription)


def deliveries_of_subscription(*, subscription: Subscription) -> QuerySet[HostDelivery]:
    return HostDelivery.objects.filter(subscription=subscription).prefetch_related("tries")


def pulled_deliveries(
    *, subscription: Subscription, after: int | None, limit: int
) -> list[HostDelivery]:
    """Pull delivery: the subscription's deliveries in creation order after
    ``after``, leaving out rows younger than SUBSCRIPTION_PULL_SETTLE (a row
    committed late must not be skipped by a reader that already moved on)."""
    settled = timezone.now() - timedelta(seconds=settings.SUBSCRIPTION_PULL_SETTLE)
    rows = HostDelivery.objects.filter(subscription=subscription, created_at__lte=settled)
    if after is not None:
        rows = rows.filter(seq__gt=after)
    return list(rows.order_by("seq")[:limit])


def host_deliveries_for_host(
    *,
    host: Host | str,
    status: str | None = None,
    type: str | None = None,
    since: datetime | None = None,
) -> QuerySet[HostDelivery]:
    host_id = host if isinstance(host, str) else host.id
    rows = HostDelivery.objects.filter(host_id=host_id).prefetch_related("tries")
    if status:
        rows = rows.filter(status=status)
    if type:
        rows = rows.filter(type=type)
    if since:
        rows = rows.filter(created_at__gte=since)
    return rows


def host_delivery_get_for_host(*, host: Host | str, delivery_id: str) -> HostDelivery:
    host_id = host if isinstance(host, str) else host.id
    delivery = HostDelivery.objects.filter(host_id=host_id, public_id=delivery_id).first()
    if delivery is None:
        raise NotFound(
            f"no delivery {delivery_id!r} for this host",
            field="delivery_id",
            code="delivery_not_found",
        )
    return delivery


def attempts_of(*, delivery: HostDelivery) -> QuerySet[DeliveryAttempt]:
    return DeliveryAttempt.objects.filter(delivery=delivery)
