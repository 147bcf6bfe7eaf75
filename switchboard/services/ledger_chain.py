"""Tamper evidence for the ledger: a hash chain per host.

Each entry carries the SHA-256 of its canonical content (``content_hash``),
the chain hash of the host's previous entry (``prev_hash``) and its own
chain hash, SHA-256 over both (``chain_hash``). Editing an entry changes its
content hash; deleting or inserting one breaks the next entry's link;
deleting the newest ones leaves the host's chain head pointing past the end.
Appends lock the host's ``AuditChainHead`` row: one host's writers take
turns, other hosts never wait. On PostgreSQL an append is one statement
(``ledger_append_sql``), so the lock is held for that and the commit.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import transaction

from switchboard.models import AuditChainHead, AuditEntry, AuditTreeLeaf
from switchboard.services.ledger_append_sql import ledger_append_statement
from switchboard.services.ledger_tree import tree_verify
from switchboard.sql_rows import one_statement_available
from switchboard.tlog import CONTENT_FIELDS

_CONTENT_FIELDS = CONTENT_FIELDS


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def json_canonical(value: Any) -> Any:
    """``value`` as the database will give it back (JSON types only)."""
    return json.loads(json.dumps(value))


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def detail_hash(detail: Any) -> str:
    return _sha256(_canonical_json(detail))


def content_hash(entry: AuditEntry) -> str:
    """The hash of what an entry says, in a form every backend reproduces:
    fixed field order, UTC time to the microsecond, and the detail by its own
    hash (``detail_hash``), so a retention purge can erase the detail and
    the chain still verifies."""
    return _sha256(_canonical_json(content_payload(entry)))


def content_payload(entry: AuditEntry) -> dict[str, Any]:
    """The fields ``content_hash`` is the hash of (exports carry them as
    ``hashed``, so an auditor recomputes the hash without the database)."""
    at = entry.at.astimezone(UTC).isoformat(timespec="microseconds")
    payload = {name: getattr(entry, name) for name in _CONTENT_FIELDS}
    payload.update(at=at, detail_sha256=entry.detail_hash)
    # Added later: hashed only when set, so the entries written before it
    # existed still verify.
    if getattr(entry, "actor_on_behalf_of", ""):
        payload["actor_on_behalf_of"] = entry.actor_on_behalf_of
    return payload


def chain_hash(prev_hash: str, content: str) -> str:
    return _sha256(f"{prev_hash}:{content}")


def ledger_append(entry: AuditEntry) -> AuditEntry:
    """Insert ``entry`` at the end of its host's chain and tree, inside the
    caller's transaction or, when there is none, as a transaction of its
    own."""
    # What needs nothing but the entry is done before the host's lock.
    entry.detail_hash = detail_hash(entry.detail)
    entry.content_hash = content_hash(entry)
    if one_statement_available():
        # Outside a transaction the statement runs in autocommit, as its own
        # transaction: PostgreSQL releases the host's lock when it ends,
        # without waiting for this process to be scheduled again and send a
        # COMMIT (with many writers on few cores, that wait was most of the
        # time the lock was held).
        if not ledger_append_statement(entry):
            AuditChainHead.objects.get_or_create(host_id=entry.host_id)
            if not ledger_append_statement(entry):
                raise RuntimeError(f"no ledger chain head for host {entry.host_id}")
        return entry
    # SQLite: one writer at a time anyway; the same values, step by step.
    with transaction.atomic():
        head = (
            AuditChainHead.objects.select_for_update(no_key=True)
            .filter(host_id=entry.host_id)
            .first()
        )
        if head is None:
            head, _ = AuditChainHead.objects.get_or_create(host_id=entry.host_id)
        entry.prev_hash = head.chain_hash
        entry.chain_hash = chain_hash(entry.prev_hash, entry.content_hash)
        entry.leaf_index = head.tree_size
        entry.save(force_insert=True)
        AuditTreeLeaf.objects.create(
            host_id=entry.host_id,
            index=entry.leaf_index,
            entry_id=entry.id,
            content_hash=entry.content_hash,
        )
        AuditChainHead.objects.filter(pk=head.pk).update(
            entry_id=entry.id, chain_hash=entry.chain_hash, tree_size=entry.leaf_index + 1
        )
    return entry


# --- verification ----------------------------------------------------------------------


@dataclass
class Verification:
    ok: bool
    checked: int
    first_broken: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok, "checked": self.checked}
        if self.first_broken is not None:
            out["first_broken"] = self.first_broken
        return out


def ledger_verify(*, host_id: str, since: datetime | None = None) -> Verification:
    """Walk the host's chain (from the first entry at or after ``since``)
    and report the first entry that does not hold; then, for the whole
    ledger (no ``since``), hold its Merkle tree to every checkpoint issued
    (``ledger_tree.tree_verify``)."""
    entries = AuditEntry.objects.filter(host_id=host_id).order_by("id")
    previous_hash = ""
    if since is not None:
        first = entries.filter(at__gte=since).first()
        if first is None:
            return Verification(ok=True, checked=0)
        before = entries.filter(id__lt=first.id).last()
        previous_hash = before.chain_hash if before is not None else ""
        entries = entries.filter(id__gte=first.id)
    checked = 0
    last = None
    for entry in entries.iterator(chunk_size=2000):
        broken = _broken(entry, previous_hash)
        if broken:
            return Verification(ok=False, checked=checked, first_broken=broken)
        checked += 1
        previous_hash = entry.chain_hash
        last = entry
    head = AuditChainHead.objects.filter(host_id=host_id).first()
    if head is not None and head.entry_id and (last is None or head.entry_id != last.id):
        # The head points at an entry the walk never reached: the newest
        # entries were removed.
        return Verification(
            ok=False,
            checked=checked,
            first_broken={"id": head.entry_id, "reason": "newest_entries_missing"},
        )
    if since is None:
        broken_tree = tree_verify(host_id)
        if broken_tree is not None:
            return Verification(ok=False, checked=checked, first_broken=broken_tree.as_dict())
    return Verification(ok=True, checked=checked)


def _broken(entry: AuditEntry, previous_hash: str) -> dict[str, Any] | None:
    # A purged detail is gone by design; its hash stays in the chain.
    if entry.detail_purged_at is None and detail_hash(entry.detail) != entry.detail_hash:
        return {"id": entry.id, "reason": "content_changed"}
    if content_hash(entry) != entry.content_hash:
        return {"id": entry.id, "reason": "content_changed"}
    if entry.prev_hash != previous_hash:
        return {"id": entry.id, "reason": "previous_entry_missing_or_changed"}
    if chain_hash(entry.prev_hash, entry.content_hash) != entry.chain_hash:
        return {"id": entry.id, "reason": "hash_changed"}
    return None
