import pgtrigger
from django.db import models

from switchboard.models.hosts import Host

# The database refuses to change or remove ledger rows (PostgreSQL); only a
# retention purge may, inside ``pgtrigger.ignore(LEDGER_PROTECTION)``.
LEDGER_PROTECTION = "switchboard.AuditEntry:ledger_append_only"


class ActorKind(models.TextChoices):
    USER = "user"
    STAFF = "staff"
    HOST_KEY = "host_key"
    SYSTEM = "system"


class AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise PermissionError("the audit ledger is append-only")

    def purge_details(self, *, at) -> int:
        """Retention's one change: erase the details (their hash stays). Only
        ``switchboard.services.ledger_retention`` calls it."""
        return super().update(detail={}, detail_purged_at=at)

    def delete(self):
        raise PermissionError("the audit ledger is append-only")


# The ledger's host: entries and leaves name their host without a foreign
# key constraint in the database. The host's ``AuditChainHead`` has one, and
# an append writes its entry and leaf only from that locked head row (no
# head, no row; ``ledger_append_sql``): the head's constraint already proves
# the host exists, and keeps a host with a ledger from being deleted. The
# entries' and leaves' own checks only repeated it, at commit, while the
# host's lock is held: two lookups and a row lock of the host per append
# on the path every writer of the host waits on.
class AuditEntry(models.Model):
    """One line of the append-only ledger. Written only via ``audit_record``.

    Subjects are stored as plain ids (not foreign keys) so deleting a user or
    server never rewrites history; secrets and user content never enter here.
    """

    id = models.BigAutoField(primary_key=True)
    # No index of its own: every lookup by host uses ``audit_host_idx``,
    # and every append, often under the host's lock, would otherwise write
    # two more index entries. No foreign key constraint in the database:
    # see "The ledger's host" above.
    host = models.ForeignKey(
        Host,
        on_delete=models.PROTECT,
        related_name="audit_entries",
        db_index=False,
        db_constraint=False,
    )
    at = models.DateTimeField(db_index=True)
    kind = models.CharField(max_length=60)
    actor_kind = models.CharField(max_length=16, choices=ActorKind.choices)
    actor_id = models.CharField(max_length=200, blank=True)
    actor_label = models.CharField(max_length=200, blank=True)
    # For an API call: whom the host made it for (its ``Switchboard-Actor``
    # header), beside the key in ``actor_*``.
    actor_on_behalf_of = models.CharField(max_length=200, blank=True)
    user_id = models.CharField(max_length=40, blank=True)  # the end user concerned
    user_external_id = models.CharField(max_length=200, blank=True)
    server_id = models.CharField(max_length=40, blank=True)
    subject_type = models.CharField(max_length=40, blank=True)
    subject_id = models.CharField(max_length=60, blank=True)
    summary = models.CharField(max_length=500)
    detail = models.JSONField(default=dict, blank=True)
    # Tamper evidence (``switchboard.services.ledger_chain``): the SHA-256 of
    # the detail and of this entry's canonical content (which covers the
    # detail's hash), the chain hash of the host's previous entry, and this
    # entry's own chain hash over both.
    detail_hash = models.CharField(max_length=64, blank=True)
    content_hash = models.CharField(max_length=64, blank=True)
    prev_hash = models.CharField(max_length=64, blank=True)
    chain_hash = models.CharField(max_length=64, blank=True)
    # Set when retention erased ``detail`` (``ledger_payloads_purge``): the
    # entry stays, and ``detail_hash`` still proves what the detail was.
    detail_purged_at = models.DateTimeField(null=True, blank=True)
    # Its place among the host's entries: the leaf of the host's transparency
    # log (``switchboard.services.ledger_tree``), counted from 0 in id order.
    leaf_index = models.BigIntegerField(null=True, blank=True)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "audit entries"
        triggers = [
            pgtrigger.Protect(
                name="ledger_append_only", operation=pgtrigger.Update | pgtrigger.Delete
            )
        ]
        indexes = [
            # The audit API/page: one host's entries, newest first, by kind / user / server.
            models.Index(fields=["host", "-id"], name="audit_host_idx"),
            models.Index(fields=["host", "kind", "-id"], name="audit_host_kind_idx"),
            models.Index(fields=["host", "user_id", "-id"], name="audit_host_user_idx"),
            models.Index(fields=["host", "server_id", "-id"], name="audit_host_server_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.kind}: {self.summary}"

    def save(self, *args, **kwargs):
        if self.pk is not None and not kwargs.get("force_insert"):
            raise PermissionError("the audit ledger is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("the audit ledger is append-only")

    @property
    def actor(self) -> dict:
        return {
            # Stored as "host_key" since the first entry (the chain covers it);
            # the API and exports call it what the contract does.
            "kind": "api_key" if self.actor_kind == ActorKind.HOST_KEY else self.actor_kind,
            "id": self.actor_id,
            "label": self.actor_label,
            "on_behalf_of": self.actor_on_behalf_of or None,
        }


class AuditChainHead(models.Model):
    """The newest link of one host's ledger chain. Writers lock this row to
    append: entries of one host are chained one at a time, other hosts'
    writers never wait for them (no global lock). On PostgreSQL the lock is
    held for one statement and the commit (``ledger_append_sql``)."""

    host = models.OneToOneField(
        Host, primary_key=True, on_delete=models.PROTECT, related_name="audit_chain_head"
    )
    entry_id = models.BigIntegerField(default=0)
    chain_hash = models.CharField(max_length=64, blank=True)
    # The host's Merkle tree: how many leaves (set by every append), and its
    # compact range (hex roots of its perfect subtrees, largest first) as of
    # ``frontier_size`` leaves. Appends leave the range alone (it would cost
    # them hashes and a bigger row under the lock); whoever needs the root
    # extends it from the leaf records and saves it (``tree_frontier``).
    tree_size = models.BigIntegerField(default=0)
    frontier = models.JSONField(default=list, blank=True)
    frontier_size = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"ledger head of {self.host_id}: {self.entry_id}"


# The tree's leaves, like the entries, are never changed or removed.
TREE_LEAF_PROTECTION = "switchboard.AuditTreeLeaf:tree_leaf_append_only"


class AuditTreeLeaf(models.Model):
    """One leaf of a host's transparency log as it was appended: the entry's
    content hash at append time. ``audit_verify`` compares the entries with
    these to name the entry that changed after the fact."""

    id = models.BigAutoField(primary_key=True)
    # Indexed by ``audit_tree_leaf_unique`` (host first). No foreign key
    # constraint in the database: see "The ledger's host" above.
    host = models.ForeignKey(
        Host,
        on_delete=models.PROTECT,
        related_name="audit_tree_leaves",
        db_index=False,
        db_constraint=False,
    )
    index = models.BigIntegerField()
    entry_id = models.BigIntegerField()
    content_hash = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["host", "index"], name="audit_tree_leaf_unique")
        ]
        triggers = [
            pgtrigger.Protect(
                name="tree_leaf_append_only", operation=pgtrigger.Update | pgtrigger.Delete
            )
        ]

    def __str__(self) -> str:
        return f"leaf {self.index} of {self.host_id}"


class AuditCheckpoint(models.Model):
    """A signed checkpoint of one host's tree (C2SP tlog-checkpoint), as
    issued: the note is what the host and auditors keep. The public key that
    signed it is kept with it, so checkpoints signed before a key rotation
    keep verifying."""

    id = models.BigAutoField(primary_key=True)
    host = models.ForeignKey(Host, on_delete=models.PROTECT, related_name="audit_checkpoints")
    tree_size = models.BigIntegerField()
    root_hash = models.CharField(max_length=64)  # hex
    note = models.TextField()
    key_name = models.CharField(max_length=300)
    public_key = models.CharField(max_length=64)  # base64 of the raw Ed25519 key
    last_entry_id = models.BigIntegerField()
    issued_at = models.DateTimeField()

    class Meta:
        ordering = ["-tree_size"]
        constraints = [
            models.UniqueConstraint(fields=["host", "tree_size"], name="audit_checkpoint_unique")
        ]
        triggers = [
            pgtrigger.Protect(
                name="checkpoint_append_only", operation=pgtrigger.Update | pgtrigger.Delete
            )
        ]

    def __str__(self) -> str:
        return f"checkpoint {self.tree_size} of {self.host_id}"


class AuditExportCursor(models.Model):
    """How far the scheduled export (AUDIT_EXPORT_DIR) has written a host's
    ledger: the last entry id in a file."""

    host = models.OneToOneField(
        Host, primary_key=True, on_delete=models.CASCADE, related_name="audit_export_cursor"
    )
    last_id = models.BigIntegerField(default=0)
    exported_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"ledger export of {self.host_id}: up to {self.last_id}"
