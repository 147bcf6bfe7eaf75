from django.db import models

from switchboard.models.hosts import Host


class ActorKind(models.TextChoices):
    USER = "user"
    STAFF = "staff"
    HOST_KEY = "host_key"
    SYSTEM = "system"


class AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise PermissionError("the audit ledger is append-only")

    def delete(self):
        raise PermissionError("the audit ledger is append-only")


class AuditEntry(models.Model):
    """One line of the append-only ledger. Written only via ``audit_record``.

    Subjects are stored as plain ids (not foreign keys) so deleting a user or
    server never rewrites history; secrets and user content never enter here.
    """

    id = models.BigAutoField(primary_key=True)
    host = models.ForeignKey(Host, on_delete=models.PROTECT, related_name="audit_entries")
    at = models.DateTimeField(db_index=True)
    kind = models.CharField(max_length=60)
    actor_kind = models.CharField(max_length=16, choices=ActorKind.choices)
    actor_id = models.CharField(max_length=200, blank=True)
    actor_label = models.CharField(max_length=200, blank=True)
    user_id = models.CharField(max_length=40, blank=True)  # the end user concerned
    user_external_id = models.CharField(max_length=200, blank=True)
    server_id = models.CharField(max_length=40, blank=True)
    subject_type = models.CharField(max_length=40, blank=True)
    subject_id = models.CharField(max_length=60, blank=True)
    summary = models.CharField(max_length=500)
    detail = models.JSONField(default=dict, blank=True)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "audit entries"
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
        return {"kind": self.actor_kind, "id": self.actor_id, "label": self.actor_label}
