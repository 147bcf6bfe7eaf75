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


# --- health at a glance ----------------------------------------------------------


def _succeeded(status_code: int | None) -> bool:
    return status_code is not None and 200 <= status_code < 300


def attempts_per_minute(*, host: Host, minutes: int = 30) -> list[tuple[datetime, int, int]]:
    """The host endpoint's finished attempts in the last ``minutes``, per
    minute, oldest first: ``(minute, succeeded, failed)``, empty minutes too."""
    from django.db.models.functions import TruncMinute

    from outbox.models import DeliveryAttempt

    now = timezone.now().replace(second=0, microsecond=0)
    start = now - timedelta(minutes=minutes - 1)
    rows = (
        DeliveryAttempt.objects.filter(
            delivery__host=host, completed_at__isnull=False, at__gte=start
        )
        .annotate(minute=TruncMinute("at"))
        .values_list("minute", "status_code")
    )
    counts: dict[datetime, list[int]] = {
        start + timedelta(minutes=i): [0, 0] for i in range(minutes)
    }
    for minute, status_code in rows:
        slot = counts.get(minute.replace(second=0, microsecond=0))
        if slot is not None:
            slot[0 if _succeeded(status_code) else 1] += 1
    return [(minute, ok, failed) for minute, (ok, failed) in counts.items()]


def attempts_by_stream(*, host: Host, since: datetime) -> dict[str, tuple[int, int]]:
    """Finished attempts since ``since`` per stream (a subscription id; ""
    for host-wide notices): ``(succeeded, failed)``."""
    from outbox.models import DeliveryAttempt

    counts: dict[str, list[int]] = {}
    rows = DeliveryAttempt.objects.filter(
        delivery__host=host, completed_at__isnull=False, at__gte=since
    ).values_list("delivery__stream", "status_code")
    for stream, status_code in rows:
        slot = counts.setdefault(stream, [0, 0])
        slot[0 if _succeeded(status_code) else 1] += 1
    return {stream: (ok, failed) for stream, (ok, failed) in counts.items()}
