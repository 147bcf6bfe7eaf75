"""Retention for received event payloads: past the host's retention
(``switchboard.retention``, kind ``event_payloads``) a received event's body
is erased; the row (ids, cursor, when) stays for dedup and the pages. Events
still waiting for a digest keep theirs until the digest is sent."""

from __future__ import annotations

from subscriptions.models import DigestState, ReceivedEvent
from switchboard.retention import retention_purge

PURGE_BATCH = 1000


def event_payloads_purge(*, batch: int = PURGE_BATCH) -> int:
    """One batch per host; beat calls it again until nothing is left."""
    return retention_purge(
        "event_payloads",
        due=lambda host, cutoff: (
            ReceivedEvent.objects.filter(subscription__host=host, received_at__lt=cutoff)
            .exclude(body={})
            .exclude(digest_state=DigestState.WAITING)
            .order_by("id")
            .values_list("id", flat=True)
        ),
        erase=lambda ids: ReceivedEvent.objects.filter(pk__in=ids).update(body={}),
        batch=batch,
    )
