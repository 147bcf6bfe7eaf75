"""How long each kind of kept content lives, per host.

Every app purges its own content (ledger details here, received event
payloads in subscriptions, delivery bodies in the outbox, injected text in
consent and hooks), each from the cutoff this module gives for the host,
and records each purge in the ledger with ``retention_purge_record``. A
host sets its own days on the staff policy page; a kind it did not set uses
the setting named beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from switchboard.actors import Actor
from switchboard.models import Host

# kind -> (the default's setting, in seconds; words for the page and the ledger)
KINDS: dict[str, tuple[str, str]] = {
    "ledger_details": ("LEDGER_PAYLOAD_RETENTION", "ledger entry details"),
    "event_payloads": ("EVENT_PAYLOAD_RETENTION", "received event payloads"),
    "delivery_bodies": ("DELIVERY_BODY_RETENTION", "bodies of finished host deliveries"),
    "injected_text": ("INJECTION_TEXT_RETENTION", "injected text (conversations and hooks)"),
}
MAX_DAYS = 36_500

PURGER = Actor.system("retention")


def retention_default(kind: str) -> timedelta:
    return timedelta(seconds=getattr(settings, KINDS[kind][0]))


def retention_for(host: Host, kind: str) -> timedelta:
    days = (host.retention_days or {}).get(kind)
    return timedelta(days=days) if days else retention_default(kind)


def retention_cutoffs(kind: str) -> list[tuple[Host, datetime]]:
    """Every host with the moment before which its ``kind`` content goes."""
    now = timezone.now()
    return [(host, now - retention_for(host, kind)) for host in Host.objects.all()]


def retention_purge_record(
    *, host: Host, kind: str, count: int, first: object, last: object, cutoff: datetime
) -> None:
    """One ledger entry for one purge batch: what, how many, which range."""
    from switchboard.services.audit import audit_record

    audit_record(
        host_id=host.id,
        kind="retention.purged",
        actor=PURGER,
        subject_type="retention",
        subject_id=kind,
        summary=f"Retention erased {count} {KINDS[kind][1]} older than {cutoff:%Y-%m-%d %H:%M} UTC",
        detail={
            "kind": kind,
            "count": count,
            "first": str(first),
            "last": str(last),
            "older_than": cutoff.isoformat(),
        },
    )


def retention_purge(
    kind: str,
    *,
    due: Callable[[Host, datetime], QuerySet],
    erase: Callable[[list], int],
    batch: int,
) -> int:
    """The one shape of every purge: per host, one batch of the ids ``due``
    lists (oldest first) past the host's cutoff, erased by ``erase`` and
    recorded, in one transaction. Returns how many were erased in all; beat
    calls again until nothing is left."""
    erased = 0
    for host, cutoff in retention_cutoffs(kind):
        with transaction.atomic():
            ids = list(due(host, cutoff)[:batch])
            if not ids:
                continue
            count = erase(ids)
            retention_purge_record(
                host=host, kind=kind, count=count, first=ids[0], last=ids[-1], cutoff=cutoff
            )
            erased += count
    return erased
