from django.db import models

from switchboard.ids import id_factory
from switchboard.models.base import TimeStamped


class Host(TimeStamped):
    """A tenant: one integrating application (chat app, agent runtime)."""

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("hst"), editable=False
    )
    name = models.CharField(max_length=120, unique=True)
    # Origins a consent request's return_url may point at (scheme://host[:port]).
    allowed_origins = models.JSONField(default=list, blank=True)
    # This host's own retention, in days, per kind of kept content
    # (``switchboard.retention.KINDS``); a kind left out: the setting's default.
    retention_days = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ApiKey(TimeStamped):
    """A host's API key. Only a SHA-256 hash is kept; the plaintext is shown once."""

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("key"), editable=False
    )
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=120, blank=True)
    # The first characters of the key, so people can tell keys apart in lists.
    prefix = models.CharField(max_length=16)
    hashed = models.CharField(max_length=64, unique=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.host_id})"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
