"""A host's own retention days, per kind of kept content
(``switchboard.retention``); the purges themselves live with each app."""

from __future__ import annotations

from django.db import transaction

from switchboard.actors import Actor
from switchboard.errors import Invalid
from switchboard.models import Host
from switchboard.retention import KINDS, MAX_DAYS, retention_default
from switchboard.services.audit import audit_record


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
