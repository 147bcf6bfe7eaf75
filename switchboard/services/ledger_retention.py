"""Retention for the ledger's payloads.

An entry's ``detail`` is erased once older than its host's retention; the
entry itself (who, what, when, the summary) stays, and so does the chain,
because an entry's content hash covers its detail by hash
(``ledger_chain``). Purged in batches by beat, each purge recorded as a
ledger entry of its own with what it erased."""

from __future__ import annotations

import pgtrigger
from django.utils import timezone

from switchboard.models import LEDGER_PROTECTION, AuditEntry
from switchboard.retention import retention_purge


def ledger_payloads_purge(*, batch: int = 1000) -> int:
    """One batch per host of details past retention; returns how many were
    erased in all. Beat calls it again until nothing is left."""
    return retention_purge(
        "ledger_details",
        due=lambda host, cutoff: (
            AuditEntry.objects.filter(host=host, at__lt=cutoff, detail_purged_at__isnull=True)
            .exclude(detail={})
            .order_by("id")
            .values_list("id", flat=True)
        ),
        erase=_erase_details,
        batch=batch,
    )


def _erase_details(ids: list) -> int:
    # The only writer allowed past the ledger's trigger.
    with pgtrigger.ignore(LEDGER_PROTECTION):
        return AuditEntry.objects.filter(pk__in=ids).purge_details(at=timezone.now())
