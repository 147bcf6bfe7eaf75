"""Signed checkpoints of each host's transparency log (docs/transparency.md).

Beat asks every ``BEAT_TICK`` (``checkpoints_issue_due``); a host whose tree
grew gets a new checkpoint once ``AUDIT_CHECKPOINT_INTERVAL`` has passed
since its last one. Before signing, the new tree is held to the last
checkpoint issued: the console never signs a tree inconsistent with one it
signed before. Each checkpoint is announced (``audit_checkpoint_issued``);
the outbox sends it to the host as ``audit.checkpoint``. The audit drain
reads the checkpoints table itself (``audit_drain``: each goes to the SIEM
after the entries it covers) and sends the same payload,
``checkpoint_witness_payload``.
"""

from __future__ import annotations

import base64
import logging
from datetime import timedelta
from functools import cache
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from switchboard import signals, tlog
from switchboard.models import AuditChainHead, AuditCheckpoint
from switchboard.services.ledger_tree import leaves, tree_frontier, tree_frontier_save

log = logging.getLogger(__name__)


@cache
def _signing_key(seed_b64: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(base64.b64decode(seed_b64))


def signing_key() -> Ed25519PrivateKey:
    return _signing_key(settings.AUDIT_CHECKPOINT_SIGNING_KEY)


def log_origin(host_id: str) -> str:
    """``<hostname[:port] of PUBLIC_BASE_URL>/audit/<host id>``: the
    checkpoint's origin and the key's name."""
    return f"{urlsplit(settings.PUBLIC_BASE_URL).netloc}/audit/{host_id}"


def checkpoint_key(checkpoint: AuditCheckpoint) -> dict[str, str]:
    public = base64.b64decode(checkpoint.public_key)
    return {
        "name": checkpoint.key_name,
        "key_id": tlog.key_id(checkpoint.key_name, public).hex(),
        "public_key": checkpoint.public_key,
        "vkey": tlog.verifier_key(checkpoint.key_name, public),
    }


def checkpoint_as_dict(checkpoint: AuditCheckpoint) -> dict[str, Any]:
    return {
        **checkpoint_witness_payload(checkpoint),
        "key": checkpoint_key(checkpoint),
    }


def checkpoint_witness_payload(checkpoint: AuditCheckpoint) -> dict[str, Any]:
    """What a witness keeps of a checkpoint: the ``audit.checkpoint``
    delivery's data, and what an audit drain should ship off-box."""
    return {
        "origin": checkpoint.key_name,
        "tree_size": checkpoint.tree_size,
        "root_hash": base64.b64encode(bytes.fromhex(checkpoint.root_hash)).decode(),
        "note": checkpoint.note,
    }


def latest_checkpoint(host_id: str) -> AuditCheckpoint | None:
    return AuditCheckpoint.objects.filter(host_id=host_id).order_by("-tree_size").first()


def checkpoint_covering(host_id: str, leaf_index: int) -> AuditCheckpoint | None:
    """The first checkpoint whose tree holds the leaf (None: not yet)."""
    return (
        AuditCheckpoint.objects.filter(host_id=host_id, tree_size__gt=leaf_index)
        .order_by("tree_size")
        .first()
    )


class InconsistentTree(Exception):
    """The tree no longer holds a checkpoint already issued."""


def checkpoint_issue(host_id: str) -> AuditCheckpoint | None:
    """Sign the host's tree as it is now, if it grew since the last
    checkpoint; raises ``InconsistentTree`` rather than sign a tree that
    does not extend the last one."""
    with transaction.atomic():
        # No lock: the head is a consistent snapshot, and the entries it
        # covers are committed in id order (appends hold the head's lock to
        # commit), so appends go on while the tree is checked.
        head = AuditChainHead.objects.filter(host_id=host_id).first()
        if head is None or not head.tree_size:
            return None
        previous = latest_checkpoint(host_id)
        if previous is not None and previous.tree_size >= head.tree_size:
            return None
        frontier = tree_frontier(head)
        if frontier is None:
            raise InconsistentTree(f"host {host_id}: leaf records missing below the head")
        root = tlog.frontier_root(frontier)
        if previous is not None:
            _hold_to(host_id, previous, head.tree_size, root)
        key = signing_key()
        origin = log_origin(host_id)
        note = tlog.sign_note(tlog.checkpoint_body(origin, head.tree_size, root), origin, key)
        checkpoint = AuditCheckpoint.objects.create(
            host_id=host_id,
            tree_size=head.tree_size,
            root_hash=root.hex(),
            note=note,
            key_name=origin,
            public_key=base64.b64encode(tlog.public_key_bytes(key)).decode(),
            last_entry_id=head.entry_id,
            issued_at=timezone.now(),
        )
        tree_frontier_save(head, frontier)
        signals.audit_checkpoint_issued.send(
            sender=AuditCheckpoint,
            checkpoint=checkpoint,
            payload=checkpoint_witness_payload(checkpoint),
        )
    return checkpoint


def _hold_to(host_id: str, previous: AuditCheckpoint, size: int, root: bytes) -> None:
    """The entries must still give ``previous``'s root and extend to
    ``root``; the consistency proof between them must verify."""
    current = leaves(host_id, size)
    old_root = bytes.fromhex(previous.root_hash)
    if len(current) != size or tlog.root_hash(current) != root:
        raise InconsistentTree(f"host {host_id}: the entries do not give the tree's root")
    proof = tlog.consistency_proof(current, previous.tree_size)
    if not tlog.verify_consistency(previous.tree_size, size, old_root, root, proof):
        raise InconsistentTree(
            f"host {host_id}: the tree does not extend checkpoint {previous.tree_size}"
        )


def checkpoints_issue_due() -> int:
    """Beat: a checkpoint for each host whose tree grew and whose last
    checkpoint is at least ``AUDIT_CHECKPOINT_INTERVAL`` old; how many."""
    cutoff = timezone.now() - timedelta(seconds=settings.AUDIT_CHECKPOINT_INTERVAL)
    issued = 0
    for head in AuditChainHead.objects.filter(tree_size__gt=0).only("host_id", "tree_size"):
        last = latest_checkpoint(head.host_id)
        if last is not None and (last.tree_size >= head.tree_size or last.issued_at > cutoff):
            continue
        try:
            if checkpoint_issue(head.host_id) is not None:
                issued += 1
        except InconsistentTree:
            log.error("ledger tree of %s refused: not signed", head.host_id, exc_info=True)
    return issued
