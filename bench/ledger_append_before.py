"""The ledger append as it was before it was made lean, kept for
bench/ledger_append.py to measure beside today's in one run: the host's
chain head read with the ORM under its lock, then the entry, its leaf and
the head written one statement after the other, all inside the lock."""

from __future__ import annotations

from switchboard import tlog
from switchboard.models import AuditChainHead, AuditEntry, AuditTreeLeaf
from switchboard.services.ledger_chain import chain_hash, content_hash, detail_hash
from switchboard.services.ledger_tree import tree_frontier


def tree_append(head: AuditChainHead, entry: AuditEntry) -> None:
    entry.leaf_index = head.tree_size
    leaf = tlog.leaf_hash(bytes.fromhex(entry.content_hash))
    # The host's first entries (its creation) were appended by today's
    # append, which leaves the range behind: caught up once.
    caught_up = tree_frontier(head) if head.frontier_size < head.tree_size else None
    frontier = caught_up or [bytes.fromhex(item) for item in head.frontier]
    frontier = tlog.frontier_append(frontier, head.tree_size, leaf)
    head.frontier = [item.hex() for item in frontier]
    head.tree_size += 1


def ledger_append(entry: AuditEntry) -> AuditEntry:
    head = (
        AuditChainHead.objects.select_for_update(no_key=True).filter(host_id=entry.host_id).first()
    )
    if head is None:
        head, _ = AuditChainHead.objects.get_or_create(host_id=entry.host_id)
        head = AuditChainHead.objects.select_for_update(no_key=True).get(pk=head.pk)
    entry.detail_hash = detail_hash(entry.detail)
    entry.content_hash = content_hash(entry)
    entry.prev_hash = head.chain_hash
    entry.chain_hash = chain_hash(entry.prev_hash, entry.content_hash)
    tree_append(head, entry)
    entry.save(force_insert=True)
    AuditTreeLeaf.objects.create(
        host_id=entry.host_id,
        index=entry.leaf_index,
        entry_id=entry.id,
        content_hash=entry.content_hash,
    )
    AuditChainHead.objects.filter(pk=head.pk).update(
        entry_id=entry.id,
        chain_hash=entry.chain_hash,
        tree_size=head.tree_size,
        frontier=head.frontier,
        frontier_size=head.tree_size,
    )
    return entry
