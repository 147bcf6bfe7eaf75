"""Retention for the ledger's payloads, and a host's own retention days.

An entry's ``detail`` is erased once older than its host's retention; the
entry itself (who, what, when, the summary) stays, and so does the chain,
because an entry's content hash covers its detail by hash
(``ledger_chain``). Purged in batches by beat, each purge recorded as a
ledger entry of its own with what it erased."""

from __future__ import annotations

import pgtrigger
from django.db import transaction
from django.utils import timezone

from switchboard.actors import Actor
from switchboard.errors import Invalid
from switchboard.models import LEDGER_PROTECTION, AuditEntry, Host
from switchboard.retention import KINDS, MAX_DAYS, retention_default, retention_purge
from switchboard.services.audit import audit_record


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


@transaction.atomic
def host_retention_set(*, host: Host, days: dict[str, int | None], actor: Actor) -> Host:
    """A host's own retention per kind (None: the kind's default); one
    ledger entry with what changed."""
    for kind, value in days.items():
        if kind not in KINDS:
            raise Invalid(f"unknown kind of kept content {kind!r}", field=kind)
        if value is not None and not 1 <= value <= MAX_DAYS:
            raise Invalid(f"keep {KINDS[kind][1]} between 1 and 36,500 days", field=kind)
    host = Host.objects.select_for_update(no_key=True).get(pk=host.pk)
    before = dict(host.retention_days or {})
    after = {**before, **{k: v for k, v in days.items() if v is not None}}
    for kind, value in days.items():
        if value is None:
            after.pop(kind, None)
    if after == before:
        return host
    host.retention_days = after
    host.save(update_fields=["retention_days", "updated_at"])
    changed = sorted(k for k in KINDS if before.get(k) != after.get(k))
    audit_record(
        host_id=host.id,
        kind="policy.retention_changed",
        actor=actor,
        subject_type="host",
        subject_id=host.id,
        summary="Retention changed: "
        + "; ".join(
            f"{KINDS[k][1]} {_days(k, before.get(k))} → {_days(k, after.get(k))}" for k in changed
        ),
        detail={"changed": {k: {"from": before.get(k), "to": after.get(k)} for k in changed}},
    )
    return host


def _days(kind: str, days: int | None) -> str:
    if days is None:
        return f"default ({retention_default(kind).days} days)"
    return f"{days} days"
