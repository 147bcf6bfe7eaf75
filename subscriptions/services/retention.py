"""Retention for received event payloads: past the host's retention
(``switchboard.retention``, kind ``event_payloads``) a received event's body
is erased; the row (ids, cursor, when) stays for dedup and the pages. Events
still waiting for a digest keep theirs until the digest is sent."""

from __future__ import annotations

from django.db import transaction

from subscriptions.models import DigestState, ReceivedEvent
from switchboard.retention import retention_cutoffs, retention_purge_record

PURGE_BATCH = 1000


def event_payloads_purge(*, batch: int = PURGE_BATCH) -> int:
    """One batch per host; beat calls it again until nothing is left."""
    erased = 0
    for host, cutoff in retention_cutoffs("event_payloads"):
        with transaction.atomic():
            ids = list(
                ReceivedEvent.objects.filter(subscription__host=host, received_at__lt=cutoff)
                .exclude(body={})
                .exclude(digest_state=DigestState.WAITING)
                .order_by("id")
                .values_list("id", flat=True)[:batch]
            )
            if not ids:
                continue
            ReceivedEvent.objects.filter(pk__in=ids).update(body={})
            retention_purge_record(
                host=host,
                kind="event_payloads",
                count=len(ids),
                first=ids[0],
                last=ids[-1],
                cutoff=cutoff,
            )
            erased += len(ids)
    return erased
