"""The single writer of the audit ledger."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone

from switchboard import live, metrics
from switchboard.actors import Actor
from switchboard.models import AuditEntry, User
from switchboard.services.ledger_chain import json_canonical, ledger_append
from switchboard.services.ledger_digest import inputs_digested

# Keys whose values must never be written to the ledger, at any depth.
_SECRET_KEYS = ("secret", "password", "token", "authorization", "headers", "api_key", "cookie")


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: "[redacted]" if any(word in key.lower() for word in _SECRET_KEYS) else _scrub(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_scrub(item) for item in value]
    return value


def audit_access_record(
    *, host_id: str, actor: Actor, kind: str, filters: dict[str, Any], what: str
) -> AuditEntry:
    """An audit of the audit: a read by an auditor (``audit.read``) or an
    export (``audit.exported``), with the filters it used."""
    shown = {k: str(v) for k, v in filters.items() if v not in (None, "")}
    return audit_record(
        host_id=host_id,
        kind=kind,
        actor=actor,
        subject_type="audit",
        summary=f"{actor.label or actor.kind} {what}"[:500],
        detail={"filters": shown},
    )


def audit_record(
    *,
    host_id: str,
    kind: str,
    actor: Actor,
    summary: str,
    user: User | None = None,
    server_id: str = "",
    subject_type: str = "",
    subject_id: str = "",
    detail: dict[str, Any] | None = None,
    at: datetime | None = None,
) -> AuditEntry:
    """Append one entry and push it to the live activity feeds after commit.
    ``at``: when it happened, for an entry written after the fact (a record a
    worker writes once the host has its answer); now when omitted."""
    entry = AuditEntry(
        host_id=host_id,
        at=at or timezone.now(),
        kind=kind,
        actor_kind=actor.kind,
        actor_id=actor.id,
        actor_label=actor.label[:200],
        actor_on_behalf_of=actor.on_behalf_of[:200],
        user_id=user.id if user else "",
        user_external_id=(user.external_id or "") if user else "",
        server_id=server_id,
        subject_type=subject_type,
        subject_id=subject_id,
        summary=summary[:500],
        detail=json_canonical(_scrub(inputs_digested(detail or {}))),
    )
    ledger_append(entry)  # in the caller's transaction, or one of its own
    metrics.after_commit(lambda: metrics.ledger_entries.labels(kind=kind).inc())
    live.audit_entry_added(entry)
    return entry
