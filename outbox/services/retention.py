"""Retention for what the host was sent: past the host's retention
(``switchboard.retention``, kind ``delivery_bodies``) a delivered row's body
is erased; the row (webhook-id, type, status, attempts) stays for the log.
Rows not delivered keep their body: they may still be sent or resent."""

from __future__ import annotations

from outbox.models import DeliveryStatus, HostDelivery
from switchboard.retention import retention_purge

PURGE_BATCH = 1000


def delivery_bodies_purge(*, batch: int = PURGE_BATCH) -> int:
    """One batch per host; beat calls it again until nothing is left."""
    return retention_purge(
        "delivery_bodies",
        due=lambda host, cutoff: (
            HostDelivery.objects.filter(
                host=host, status=DeliveryStatus.DELIVERED, created_at__lt=cutoff
            )
            .exclude(body={})
            .order_by("seq")
            .values_list("seq", flat=True)
        ),
        erase=lambda seqs: HostDelivery.objects.filter(pk__in=seqs).update(body={}),
        batch=batch,
    )
