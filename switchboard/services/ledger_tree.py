"""Each host's ledger as a transparency log: an RFC 9162 Merkle tree whose
leaves are the entries' content hashes, in id order (docs/transparency.md).

Kept at append time, under the chain head's lock ``ledger_append`` already
holds: the entry gets its ``leaf_index``, the head its new size, and an
``AuditTreeLeaf`` records the leaf as appended. No second writer and no
sequencer lag: an inclusion proof exists as soon as the entry's transaction
commits. The head's compact range (what a checkpoint's root is computed
from) is brought up to date by whoever needs the root (``tree_frontier``),
from the leaf records, so an append does no tree hashing under the lock.

Proofs are computed from the entries themselves (their ``content_hash``), not
from a copy, so an entry edited in the database yields proofs that no longer
match the checkpoints the host holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from switchboard import tlog
from switchboard.models import AuditChainHead, AuditCheckpoint, AuditEntry, AuditTreeLeaf


def tree_frontier(head: AuditChainHead) -> list[bytes] | None:
    """The compact range of the host's tree of ``head.tree_size`` leaves:
    the head's saved range extended by the leaves recorded since (O(log n)
    hashes a leaf, amortised one); None when it does not add up (a range
    of the wrong shape, leaf records missing)."""
    frontier = [bytes.fromhex(item) for item in head.frontier]
    size = head.frontier_size
    if len(frontier) != size.bit_count():  # one subtree per bit: anything else was edited
        return None
    recorded = (
        AuditTreeLeaf.objects.filter(
            host_id=head.host_id, index__gte=size, index__lt=head.tree_size
        )
        .order_by("index")
        .values_list("content_hash", flat=True)
    )
    for content_hash in recorded.iterator(chunk_size=5000):
        frontier = tlog.frontier_append(frontier, size, tlog.leaf_hash(bytes.fromhex(content_hash)))
        size += 1
    return frontier if size == head.tree_size else None


def tree_frontier_save(head: AuditChainHead, frontier: list[bytes]) -> None:
    """Keep ``frontier`` (the range of ``head.tree_size`` leaves) on the head,
    unless a newer one is there already. It waits for an append that holds
    the head, no longer."""
    AuditChainHead.objects.filter(host_id=head.host_id, frontier_size__lt=head.tree_size).update(
        frontier=[item.hex() for item in frontier], frontier_size=head.tree_size
    )


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
