"""Retention for the ledger's payloads: an entry's ``detail`` is erased
once older than its host's retention; the entry itself (who, what, when,
the summary) stays, and so does the chain, because an entry's content hash
covers its detail by hash (``ledger_chain``). Purged in batches by beat,
each purge recorded as a ledger entry of its own with what it erased."""

from __future__ import annotations

from datetime import timedelta

import pgtrigger
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from switchboard.actors import Actor
from switchboard.errors import Invalid
from switchboard.models import LEDGER_PROTECTION, AuditEntry, Host
from switchboard.services.audit import audit_record

_PURGER = Actor.system("ledger retention")


def ledger_payload_retention(host: Host) -> timedelta:
    days = host.ledger_payload_retention_days
    if days is not None:
        return timedelta(days=days)
    return timedelta(seconds=settings.LEDGER_PAYLOAD_RETENTION)


def ledger_payloads_purge(*, batch: int = 1000) -> int:
    """One batch per host of details past retention; returns how many were
    erased in all. Beat calls it again until nothing is left."""
    erased = 0
    for host in Host.objects.all():
        erased += _purge_host(host, batch=batch)
    return erased


@transaction.atomic
def _purge_host(host: Host, *, batch: int) -> int:
    cutoff = timezone.now() - ledger_payload_retention(host)
    ids = list(
        AuditEntry.objects.filter(host=host, at__lt=cutoff, detail_purged_at__isnull=True)
        .exclude(detail={})
        .order_by("id")
        .values_list("id", flat=True)[:batch]
    )
    if not ids:
        return 0
    # The only writer allowed past the ledger's trigger.
    with pgtrigger.ignore(LEDGER_PROTECTION):
        AuditEntry.objects.filter(pk__in=ids).purge_details(at=timezone.now())
    audit_record(
        host_id=host.id,
        kind="ledger.payloads_purged",
        actor=_PURGER,
        subject_type="ledger",
        subject_id=host.id,
        summary=f"Retention erased the details of {len(ids)} ledger entries "
        f"(ids {ids[0]}–{ids[-1]}, older than {cutoff:%Y-%m-%d %H:%M} UTC)",
        detail={
            "count": len(ids),
            "first_id": ids[0],
            "last_id": ids[-1],
            "older_than": cutoff.isoformat(),
        },
    )
    return len(ids)


@transaction.atomic
def host_ledger_retention_set(*, host: Host, days: int | None, actor: Actor) -> Host:
    """A host's own payload retention (None: the LEDGER_PAYLOAD_RETENTION
    default); one ledger entry with before and after."""
    if days is not None and not 1 <= days <= 36_500:
        raise Invalid("keep ledger details between 1 and 36,500 days", field="days")
    host = Host.objects.select_for_update().get(pk=host.pk)
    before = host.ledger_payload_retention_days
    if before == days:
        return host
    host.ledger_payload_retention_days = days
    host.save(update_fields=["ledger_payload_retention_days", "updated_at"])
    audit_record(
        host_id=host.id,
        kind="policy.ledger_retention_changed",
        actor=actor,
        subject_type="host",
        subject_id=host.id,
        summary=f"Ledger details are now kept for {_days(days)} (was {_days(before)})",
        detail={"from_days": before, "to_days": days},
    )
    return host


def _days(days: int | None) -> str:
    if days is None:
        default = settings.LEDGER_PAYLOAD_RETENTION / 86400
        return f"the default ({default:g} days)"
    return f"{days} days"
