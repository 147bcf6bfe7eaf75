"""Consent as of a moment: a user's grants as they stood at a past time,
rebuilt from the ledger alone (grants change; the ledger is append-only).

The same entries as ``consent.selectors.consent_at`` (one state per server
and scope) and the evidence page (every step, ``consent_evidence``), replayed
per grant: each grant that existed then, with its status then. So what the
"as of" view says at the moment of any printed step is that step's status.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from consent.models import GrantStatus
from consent.selectors import consent_ledger_entries
from switchboard.models import AuditCheckpoint, AuditEntry, User
from switchboard.services.ledger_checkpoints import checkpoint_covering


@dataclass
class GrantAsOf:
    """One grant as it stood; the attribute names of ``consent.models.Grant``,
    so the API's ``GrantOut`` and the pages read either."""

    id: str
    server_id: str
    scope: str
    status: str = ""
    created_at: datetime | None = None
    granted_at: datetime | None = None
    expires_at: datetime | None = None
    revoked_at: datetime | None = None
    suspended_at: datetime | None = None
    suspended_reason: str = ""
    approved_hook_ids: list[str] = field(default_factory=list)
    approved_event_types: list[str] = field(default_factory=list)
    identity: str = "host"
    channel: str = ""
    declaration_hash: str = ""
    server_url: str = ""
    source: str = "user"
    org_grant_id: str | None = None
    server_name: str = ""  # filled by pages
    last_entry_id: int = 0  # the ledger entry that set this state
    last_entry_at: datetime | None = None
    last_leaf_index: int | None = None  # that entry's leaf in the host's log


@dataclass
class LedgerPosition:
    """Where in the host's transparency log an "as of" answer is read: the
    newest entry it replays and the first signed checkpoint whose tree holds
    it. Leaves follow entry ids, so that checkpoint holds every entry the
    answer replays: an auditor can check them against it later, with the
    proof endpoints or ``switchboard-verify``."""

    entry_id: int | None = None
    leaf_index: int | None = None
    checkpoint: AuditCheckpoint | None = None
    # Why there is no checkpoint: no_entries (nothing was recorded for the
    # user by then) or not_signed_yet (the next checkpoint will hold it).
    reason: str | None = None


def _apply(grant: GrantAsOf, entry: AuditEntry) -> None:
    detail: dict[str, Any] = entry.detail or {}
    kind = entry.kind.removeprefix("consent.")
    grant.status = detail.get("status") or grant.status
    grant.last_entry_id, grant.last_entry_at = entry.id, entry.at
    grant.last_leaf_index = entry.leaf_index
    if kind == "requested":
        grant.created_at = entry.at
        grant.declaration_hash = detail.get("declaration_hash") or ""
        grant.identity = (detail.get("shown") or {}).get("identity") or grant.identity
    elif kind == "approved":
        grant.granted_at = entry.at
        grant.approved_hook_ids = list(detail.get("approved_hooks") or [])
        grant.approved_event_types = list(detail.get("approved_event_types") or [])
        grant.declaration_hash = detail.get("declaration_hash") or grant.declaration_hash
        grant.identity = detail.get("identity") or grant.identity
        grant.channel = detail.get("channel") or ""
        grant.server_url = detail.get("server_url") or ""
        # Who gave it: a member's grant from an organisation grant says so in
        # its approval; the user's own approval (before or after) does not.
        grant.source = detail.get("source") or "user"
        grant.org_grant_id = detail.get("org_grant_id")
        expires = detail.get("expires_at")
        grant.expires_at = datetime.fromisoformat(expires) if expires else None
        grant.suspended_at, grant.suspended_reason, grant.revoked_at = None, "", None
    elif kind == "suspended":
        grant.suspended_at = entry.at
        grant.suspended_reason = detail.get("reason") or ""
    elif kind == "revoked":
        grant.revoked_at = entry.at
    elif kind == "identity_changed":
        grant.identity = detail.get("identity") or grant.identity


def grants_as_of(*, user: User, at: datetime) -> list[GrantAsOf]:
    """Every grant of ``user`` that existed at ``at``, newest first, each with
    its status then. An active grant whose expiry had passed by ``at`` reads
    as expired, even if the sweep recorded that later."""
    grants: dict[str, GrantAsOf] = {}
    for entry in consent_ledger_entries(user=user, at=at):
        scope = (entry.detail or {}).get("scope", "")
        grant = grants.setdefault(
            entry.subject_id,
            GrantAsOf(id=entry.subject_id, server_id=entry.server_id or "", scope=scope),
        )
        if grant.created_at is None:
            grant.created_at = entry.at
        _apply(grant, entry)
    for grant in grants.values():
        if (
            grant.status == GrantStatus.ACTIVE
            and grant.expires_at is not None
            and grant.expires_at <= at
        ):
            grant.status = GrantStatus.EXPIRED
    return sorted(grants.values(), key=lambda g: (g.created_at or at, g.id), reverse=True)


def ledger_position(*, user: User, grants: list[GrantAsOf]) -> LedgerPosition:
    """The position ``grants`` (an answer of ``grants_as_of``) is read at."""
    if not grants:
        return LedgerPosition(reason="no_entries")
    newest = max(grants, key=lambda g: g.last_entry_id)
    position = LedgerPosition(entry_id=newest.last_entry_id, leaf_index=newest.last_leaf_index)
    if position.leaf_index is not None and user.host_id is not None:
        position.checkpoint = checkpoint_covering(user.host_id, position.leaf_index)
    if position.checkpoint is None:
        position.reason = "not_signed_yet"
    return position
