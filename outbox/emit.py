"""The one way anything reaches the host's endpoint: ``host_event_emit``.

Call it inside the transaction of the change being reported. It writes an
outbox row (``HostDelivery``, through the outbox's one INSERT,
``outbox.delivery_sql``) in that transaction and, after commit, hands
the row to the process's publisher (``outbox.publish``), which sends Celery
one task for a burst of rows; so the report exists exactly when the change
does, and a lost task (worker killed, broker restarted, a publish that never
happened) is picked up again by the sweeper (``outbox.sweep_host_deliveries``).

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
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from django.db import transaction
from django.utils import timezone

from outbox.delivery_sql import deliveries_write
from outbox.models import DeliveryStatus, EndpointStatus, HostDelivery, HostEndpoint
from outbox.publish import publisher

log = logging.getLogger(__name__)

# The contract's type table (docs/host-integration.md, "What you receive").
HOST_EVENT_TYPES = frozenset(
    {
        "event.received",
        "events.digest",
        "subscription.gap",
        "subscription.updated",
        "subscription.control",
        "consent.updated",
        "access_request.updated",
        "server.updated",
        "thread.capabilities_changed",
        "audit.checkpoint",
        "ping",
    }
)
# Types that belong to a stream and wait while it is paused.
HOLDABLE_TYPES = frozenset(
    {"event.received", "events.digest", "subscription.gap", "subscription.control"}
)


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
    status = (
        _endpoint_statuses([host_id]).get(host_id)
        if endpoint_status is ...
        else cast(str | None, endpoint_status)
    )
    delivery = host_delivery_unsaved(
        HostEmit(host_id=host_id, type=type, data=data, stream=stream, hold=hold),
        endpoint_status=status,
        now=timezone.now(),
    )
    deliveries_write([delivery])
    if delivery.status == DeliveryStatus.PENDING:
        enqueue_after_commit([delivery.seq])
    return delivery


@dataclass(frozen=True)
class HostEmit:
    """One delivery for ``host_events_emit``; the fields of ``host_event_emit``."""

    host_id: str
    type: str
    data: dict[str, Any]
    stream: str = ""
    hold: bool = False


def host_events_emit(emits: list[HostEmit]) -> list[HostDelivery]:
    """``host_event_emit`` for many at once (events streamed in a burst): one
    read of the endpoints, one INSERT, in the given order (``seq`` follows
    it). Same rules, same transaction duty."""
    if not emits:
        return []
    statuses = _endpoint_statuses(list({e.host_id for e in emits}))
    now = timezone.now()
    rows = deliveries_write(
        [
            host_delivery_unsaved(emit, endpoint_status=statuses.get(emit.host_id), now=now)
            for emit in emits
        ]
    )
    enqueue_after_commit([r.seq for r in rows if r.status == DeliveryStatus.PENDING])
    return rows


def _endpoint_statuses(host_ids: list[str]) -> dict[str, str]:
    return dict(HostEndpoint.objects.filter(host_id__in=host_ids).values_list("host_id", "status"))


def host_delivery_unsaved(
    emit: HostEmit, *, endpoint_status: str | None, now: datetime
) -> HostDelivery:
    """The outbox row, its status decided by the endpoint (None: none
    configured) and the stream; not saved. ``host_event_emit`` writes it
    (``delivery_sql.deliveries_write``); a caller that puts the outbox's
    INSERT in a statement of its own (``delivery_sql.deliveries_insert``: the
    webhook receiver's one statement per event) owes ``enqueue_after_commit``
    for it when it is ``pending``, as ``host_event_emit`` does."""
    if emit.type not in HOST_EVENT_TYPES:
        raise ValueError(f"unknown host event type {emit.type!r}")
    if emit.hold and emit.type in HOLDABLE_TYPES:
        status = DeliveryStatus.HELD
    elif endpoint_status is None:
        status = DeliveryStatus.NO_ENDPOINT
    elif endpoint_status == EndpointStatus.DISABLED:
        status = DeliveryStatus.DISABLED
    else:
        status = DeliveryStatus.PENDING
    pending = status == DeliveryStatus.PENDING
    return HostDelivery(
        host_id=emit.host_id,
        stream=emit.stream,
        type=emit.type,
        body={"type": emit.type, "timestamp": iso_utc(now), "data": emit.data},
        status=status,
        next_attempt_at=now if pending else None,
        enqueued_at=now if pending else None,
    )


def enqueue_after_commit(seqs: list[int]) -> None:
    """Hand rows to Celery once the transaction that wrote them commits
    (outside one: now), through the process's publisher, which sends one task
    for a burst of rows without holding up this thread. A failure loses
    nothing: the rows stay ``pending`` and the sweeper enqueues them again
    later."""
    if seqs:
        pending = list(seqs)
        transaction.on_commit(lambda: publisher.publish(pending))
