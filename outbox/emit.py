"""The one way anything reaches the host's endpoint: ``host_event_emit``.

Call it inside the transaction of the change being reported. It writes an
outbox row (``HostDelivery``) in that transaction and, after commit, hands
the row to Celery; so the report exists exactly when the change does, and a
lost task (worker killed, broker restarted) is picked up again by the
sweeper (``outbox.sweep_host_deliveries``).

What becomes of the row depends on the host's endpoint at that moment:

- active endpoint → ``pending``: sent now, retried on the schedule;
- no endpoint configured → ``no_endpoint``: recorded (visible in the
  delivery log and in pull delivery), not sent. Configuring an endpoint later
  does not flood it with the backlog; ``POST /api/v1/host/deliveries/recover
  {since}`` sends those rows once the host asks for them;
- endpoint disabled → ``disabled``: sent when the endpoint is re-enabled;
- the stream it belongs to is paused (``hold=True``, events and gaps only)
  → ``held``: sent, in order, when its owner releases the stream.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from django.utils import timezone

from outbox.models import DeliveryStatus, EndpointStatus, HostDelivery, HostEndpoint
from switchboard.queue import enqueue_each

log = logging.getLogger(__name__)

# The contract's type table (host-api.md, "Host endpoint").
HOST_EVENT_TYPES = frozenset(
    {
        "event.received",
        "subscription.gap",
        "subscription.updated",
        "subscription.control",
        "consent.updated",
        "server.updated",
        "thread.capabilities_changed",
        "ping",
    }
)
# Types that belong to a stream and wait while it is paused.
HOLDABLE_TYPES = frozenset({"event.received", "subscription.gap", "subscription.control"})


def iso_utc(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def host_event_emit(
    *,
    host_id: str,
    type: str,
    data: dict[str, Any],
    stream: str = "",
    hold: bool = False,
    endpoint_status: str | None | object = ...,
) -> HostDelivery:
    """Record one delivery for the host's endpoint and send it after commit.

    ``stream`` ties the row to an ordered stream (a subscription's id: pull
    delivery reads by it); ``hold`` says that stream is paused, so its events
    and gaps wait. ``endpoint_status`` saves a query when the caller already
    read it (None = no endpoint).
    """
    if type not in HOST_EVENT_TYPES:
        raise ValueError(f"unknown host event type {type!r}")
    now = timezone.now()
    if endpoint_status is ...:
        endpoint_status = (
            HostEndpoint.objects.filter(host_id=host_id).values_list("status", flat=True).first()
        )
    if hold and type in HOLDABLE_TYPES:
        status = DeliveryStatus.HELD
    elif endpoint_status is None:
        status = DeliveryStatus.NO_ENDPOINT
    elif endpoint_status == EndpointStatus.DISABLED:
        status = DeliveryStatus.DISABLED
    else:
        status = DeliveryStatus.PENDING
    pending = status == DeliveryStatus.PENDING
    delivery = HostDelivery.objects.create(
        host_id=host_id,
        stream=stream,
        type=type,
        body={"type": type, "timestamp": iso_utc(now), "data": data},
        status=status,
        next_attempt_at=now if pending else None,
        enqueued_at=now if pending else None,
    )
    if pending:
        enqueue_after_commit([delivery.seq])
    return delivery


def enqueue_after_commit(seqs: list[int]) -> None:
    """Hand rows to Celery once the transaction that wrote them commits. A
    failure loses nothing: the rows stay ``pending`` and the sweeper enqueues
    them again later."""
    enqueue_each("outbox.send_host_delivery", [(seq,) for seq in seqs])
