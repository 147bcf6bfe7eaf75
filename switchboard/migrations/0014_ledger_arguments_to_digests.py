"""Entries written before the ledger kept only digests of user inputs hold
raw subscription ``arguments``: rewrite each to its keys and hash.

The chain survives because it covers an entry's detail by hash
(``detail_hash``, inside ``content_hash``): the rewritten entry keeps the
hash of what it said, and is marked ``detail_purged_at`` as retention marks
an erased detail, so verification stops comparing the detail with that hash
(which still proves the original). Each host's ledger then records the
rewrite in an entry of its own, naming the entries."""

import pgtrigger
from django.db import migrations
from django.utils import timezone

PROTECTION = "switchboard.AuditEntry:ledger_append_only"


def rewrite_raw_arguments(apps, schema_editor):
    from switchboard.services.ledger_chain import chain_hash, content_hash, detail_hash
    from switchboard import tlog
    from switchboard.services.ledger_digest import DIGESTED, inputs_digested

    AuditEntry = apps.get_model("switchboard", "AuditEntry")
    AuditChainHead = apps.get_model("switchboard", "AuditChainHead")
    AuditTreeLeaf = apps.get_model("switchboard", "AuditTreeLeaf")
    now = timezone.now()
    rewritten: dict[str, list[int]] = {}
    with pgtrigger.ignore(PROTECTION):
        for entry in AuditEntry.objects.order_by("id").iterator(chunk_size=2000):
            if not isinstance(entry.detail, dict) or not _holds_raw(entry.detail, DIGESTED):
                continue
            AuditEntry.objects.filter(pk=entry.pk).update(
                detail=inputs_digested(entry.detail), detail_purged_at=now
            )
            rewritten.setdefault(entry.host_id, []).append(entry.pk)
    for host_id, ids in rewritten.items():
        head, _ = AuditChainHead.objects.get_or_create(host_id=host_id)
        notice = AuditEntry(
            host_id=host_id,
            at=now,
            kind="ledger.inputs_redacted",
            actor_kind="system",
            actor_label="migration",
            summary=(
                f"{len(ids)} earlier entries held raw subscription arguments; "
                "they now hold only their keys and hash"
            ),
            detail={"entries": ids, "reason": "raw_inputs_in_ledger"},
        )
        notice.detail_hash = detail_hash(notice.detail)
        notice.content_hash = content_hash(notice)
        notice.prev_hash = head.chain_hash
        notice.chain_hash = chain_hash(notice.prev_hash, notice.content_hash)
        # The notice is a leaf of the host's transparency log like any entry
        # (the tree was built by 0012), so checkpoints and proofs cover it.
        size = head.tree_size
        notice.leaf_index = size
        notice.save(force_insert=True)
        AuditTreeLeaf.objects.create(
            host_id=host_id, index=size, entry_id=notice.pk, content_hash=notice.content_hash
        )
        frontier = tlog.frontier_append(
            [bytes.fromhex(item) for item in head.frontier],
            size,
            tlog.leaf_hash(bytes.fromhex(notice.content_hash)),
        )
        AuditChainHead.objects.filter(pk=host_id).update(
            entry_id=notice.pk,
            chain_hash=notice.chain_hash,
            tree_size=size + 1,
            frontier=[item.hex() for item in frontier],
        )


def _holds_raw(detail, names) -> bool:
    return any(
        key in names or (isinstance(value, dict) and _holds_raw(value, names))
        for key, value in detail.items()
    )


class Migration(migrations.Migration):
    dependencies = [
        ("switchboard", "0013_audit_actor_on_behalf_of"),
    ]

    operations = [migrations.RunPython(rewrite_raw_arguments, migrations.RunPython.noop)]
