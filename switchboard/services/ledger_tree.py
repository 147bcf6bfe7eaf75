"""Each host's ledger as a transparency log: an RFC 9162 Merkle tree whose
leaves are the entries' content hashes, in id order (docs/transparency.md).

Kept at append time, under the chain head's lock ``ledger_append`` already
holds: the entry gets its ``leaf_index``, the head its new size and compact
range (O(log n) hashes, one per merge, amortised one), and an
``AuditTreeLeaf`` records the leaf as appended. No second writer and no
sequencer lag: a checkpoint's root is read from the head, and an inclusion
proof exists as soon as the entry's transaction commits.

Proofs are computed from the entries themselves (their ``content_hash``), not
from a copy, so an entry edited in the database yields proofs that no longer
match the checkpoints the host holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from switchboard import tlog
from switchboard.models import AuditChainHead, AuditCheckpoint, AuditEntry, AuditTreeLeaf


def tree_append(head: AuditChainHead, entry: AuditEntry) -> None:
    """Place ``entry`` (not yet saved) at the end of its host's tree.
    ``head`` is the host's locked chain head; the caller saves both."""
    entry.leaf_index = head.tree_size
    leaf = tlog.leaf_hash(bytes.fromhex(entry.content_hash))
    frontier = [bytes.fromhex(item) for item in head.frontier]
    frontier = tlog.frontier_append(frontier, head.tree_size, leaf)
    head.frontier = [item.hex() for item in frontier]
    head.tree_size += 1


def tree_leaf_record(entry: AuditEntry) -> None:
    assert entry.leaf_index is not None  # tree_append placed it
    AuditTreeLeaf.objects.create(
        host_id=entry.host_id,
        index=entry.leaf_index,
        entry_id=entry.id,
        content_hash=entry.content_hash,
    )


def tree_head(host_id: str) -> tuple[int, bytes]:
    """The host's tree now: its size and root."""
    head = AuditChainHead.objects.filter(host_id=host_id).first()
    if head is None or not head.tree_size:
        return 0, tlog.root_hash([])
    return head.tree_size, tlog.frontier_root([bytes.fromhex(item) for item in head.frontier])


def leaves(host_id: str, size: int) -> list[bytes]:
    """The first ``size`` leaf hashes of the host's tree, from the entries."""
    hashes = (
        AuditEntry.objects.filter(host_id=host_id)
        .order_by("id")
        .values_list("content_hash", flat=True)[:size]
    )
    return [tlog.leaf_hash(bytes.fromhex(value)) for value in hashes.iterator(chunk_size=5000)]


# --- verification against the checkpoints issued ----------------------------------------


@dataclass
class TreeBreak:
    id: int | None
    reason: str
    leaf_index: int
    checkpoint: int | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "reason": self.reason, "leaf_index": self.leaf_index}
        if self.checkpoint is not None:
            out["checkpoint"] = self.checkpoint
        return out


def tree_verify(host_id: str) -> TreeBreak | None:
    """Rebuild the host's tree from its entries and hold it to every
    checkpoint issued and to the leaves as appended; the first entry that
    breaks one, or None.

    The leaf record names the entry exactly when only the entries were
    rewritten; when the leaf record was rewritten too, the signed roots still
    catch it, and the break is named at the first entry past the last
    checkpoint that held (``reason: checkpoint_mismatch``)."""
    checkpoints = list(
        AuditCheckpoint.objects.filter(host_id=host_id)
        .order_by("tree_size")
        .values_list("tree_size", "root_hash", "last_entry_id")
    )
    recorded = AuditTreeLeaf.objects.filter(host_id=host_id).order_by("index")
    recorded_iter = iter(recorded.values_list("index", "content_hash", "entry_id").iterator(2000))
    frontier: list[bytes] = []
    size = 0
    held = 0  # leaves covered by the last checkpoint that held
    pending = iter(checkpoints)
    next_checkpoint = next(pending, None)
    entries = AuditEntry.objects.filter(host_id=host_id).order_by("id")
    for entry_id, content_hash, leaf_index in entries.values_list(
        "id", "content_hash", "leaf_index"
    ).iterator(chunk_size=2000):
        record = next(recorded_iter, None)
        if leaf_index != size:
            return TreeBreak(id=entry_id, reason="leaf_index_changed", leaf_index=size)
        if record is not None and (record[1] != content_hash or record[2] != entry_id):
            reason = "content_changed" if record[2] == entry_id else "entry_missing_or_reordered"
            return TreeBreak(id=entry_id, reason=reason, leaf_index=size)
        frontier = tlog.frontier_append(frontier, size, tlog.leaf_hash(bytes.fromhex(content_hash)))
        size += 1
        while next_checkpoint is not None and next_checkpoint[0] == size:
            if tlog.frontier_root(frontier).hex() != next_checkpoint[1]:
                first = (
                    AuditEntry.objects.filter(host_id=host_id)
                    .order_by("id")
                    .values_list("id", flat=True)[held : held + 1]
                )
                return TreeBreak(
                    id=next(iter(first), None),
                    reason="checkpoint_mismatch",
                    leaf_index=held,
                    checkpoint=size,
                )
            held = size
            next_checkpoint = next(pending, None)
    if next_checkpoint is not None:
        # A checkpoint covers leaves the entries no longer hold: the newest
        # covered entries were removed.
        missing = AuditTreeLeaf.objects.filter(host_id=host_id, index=size).first()
        return TreeBreak(
            id=missing.entry_id if missing else next_checkpoint[2],
            reason="covered_entries_missing",
            leaf_index=size,
            checkpoint=next_checkpoint[0],
        )
    return None
