from django.db import models

from switchboard.models.hosts import Host


class DrainFormat(models.TextChoices):
    JSONL = "jsonl"
    OCSF = "ocsf"


class DrainStatus(models.TextChoices):
    ACTIVE = "active"  # caught up, or catching up without a failure
    FAILING = "failing"  # the last POST failed; retried with backoff


class AuditDrain(models.Model):
    """A host's audit drain (docs/host-integration.md §10): its ledger entries written
    after the drain was set are POSTed to ``url`` in id order, in batches,
    signed with ``secret`` (Standard Webhooks), and so is each signed
    checkpoint of its transparency log. ``last_delivered_id`` and
    ``last_checkpoint_size`` are how far the SIEM has them: after an outage
    the drain resumes from there."""

    host = models.OneToOneField(
        Host, primary_key=True, on_delete=models.CASCADE, related_name="audit_drain"
    )
    url = models.URLField(max_length=2000)
    format = models.CharField(max_length=8, choices=DrainFormat.choices)
    secret_encrypted = models.TextField()
    last_delivered_id = models.BigIntegerField(default=0)
    # The tree size of the last signed checkpoint the SIEM has: checkpoints
    # travel in the drain too, each once the entries it covers have.
    last_checkpoint_size = models.BigIntegerField(default=0)
    last_delivered_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=8, choices=DrainStatus.choices, default=DrainStatus.ACTIVE)
    failures = models.PositiveIntegerField(default=0)  # in a row; sets the backoff
    last_error = models.CharField(max_length=300, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    # A sender holds the drain until then (one POST's timeout plus a margin),
    # so two workers never send the same batch at once.
    claimed_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"audit drain of {self.host_id} ({self.format}, {self.status})"
