"""Reads of the outbox, always scoped to one host: a delivery of another host
is a 404 before any work."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from outbox.models import HostDelivery, HostEndpoint
from switchboard.errors import NotFound
from switchboard.models import Host


def endpoint_of(*, host: Host) -> HostEndpoint | None:
    return HostEndpoint.objects.filter(host=host).first()


def deliveries_of_stream(*, host_id: str, stream: str) -> QuerySet[HostDelivery]:
    return HostDelivery.objects.filter(host_id=host_id, stream=stream).prefetch_related("tries")


def pulled_deliveries(
    *, host_id: str, stream: str, after: int | None, limit: int
) -> list[HostDelivery]:
    """Pull delivery: one stream's deliveries in creation order after
    ``after``, leaving out rows younger than SUBSCRIPTION_PULL_SETTLE (a row
    committed late must not be skipped by a reader that already moved on)."""
    settled = timezone.now() - timedelta(seconds=settings.SUBSCRIPTION_PULL_SETTLE)
    rows = HostDelivery.objects.filter(host_id=host_id, stream=stream, created_at__lte=settled)
    if after is not None:
        rows = rows.filter(seq__gt=after)
    return list(rows.order_by("seq")[:limit])


def host_deliveries_for_host(
    *,
    host: Host,
    status: str | None = None,
    type: str | None = None,
    since: datetime | None = None,
) -> QuerySet[HostDelivery]:
    rows = HostDelivery.objects.filter(host=host).prefetch_related("tries")
    if status:
        rows = rows.filter(status=status)
    if type:
        rows = rows.filter(type=type)
    if since:
        rows = rows.filter(created_at__gte=since)
    return rows


def host_delivery_get_for_host(*, host: Host, delivery_id: str) -> HostDelivery:
    delivery = HostDelivery.objects.filter(host=host, public_id=delivery_id).first()
    if delivery is None:
        raise NotFound(
            f"no delivery {delivery_id!r} for this host",
            field="delivery_id",
            code="delivery_not_found",
        )
    return delivery
