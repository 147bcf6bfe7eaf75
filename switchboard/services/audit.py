"""The single writer of the audit ledger."""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from switchboard.actors import Actor
from switchboard.broadcast import broadcast_html, broadcast_topics
from switchboard.models import AuditEntry, Host, User

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


def audit_record(
    *,
    host: Host | str,
    kind: str,
    actor: Actor,
    summary: str,
    user: User | None = None,
    server_id: str = "",
    subject_type: str = "",
    subject_id: str = "",
    detail: dict[str, Any] | None = None,
) -> AuditEntry:
    """Append one entry and push it to the live activity feeds after commit."""
    host_id = host if isinstance(host, str) else host.id
    entry = AuditEntry.objects.create(
        host_id=host_id,
        at=timezone.now(),
        kind=kind,
        actor_kind=actor.kind,
        actor_id=actor.id,
        actor_label=actor.label[:200],
        user_id=user.id if user else "",
        user_external_id=(user.external_id or "") if user else "",
        server_id=server_id,
        subject_type=subject_type,
        subject_id=subject_id,
        summary=summary[:500],
        detail=_scrub(detail or {}),
    )
    html = render_to_string("activity/entry_oob.html", {"entry": entry})
    broadcast_html(html=html, host_id=host_id, user_id=entry.user_id or None)
    # The staff ledger page re-reads itself, with its filters.
    broadcast_topics(topics=["audit"], host_id=host_id, staff=True)
    return entry
