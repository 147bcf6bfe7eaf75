"""The host outbox: everything the host must hear about is a ``HostDelivery``
row, written in the same transaction as the change it reports and sent by
Celery to the host's ``HostEndpoint``; each try is a ``DeliveryAttempt``.

The outbox sits under the feature apps and knows none of them: a row that
belongs to an ordered stream (a subscription's events) carries the stream's
id in ``stream``, and the app that owns the stream says when it is paused.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from switchboard.crypto import decrypt_text
from switchboard.ids import id_factory
from switchboard.models import Host
from switchboard.models.base import TimeStamped


class EndpointStatus(models.TextChoices):
    ACTIVE = "active"
    DISABLED = "disabled"


class HostEndpoint(TimeStamped):
    """Where the console pushes the host's deliveries (one per host)."""

    host = models.OneToOneField(
        Host, primary_key=True, on_delete=models.CASCADE, related_name="endpoint"
    )
    url = models.URLField(max_length=2000)
    secret_encrypted = models.TextField()
    previous_secret_encrypted = models.TextField(blank=True)
    previous_secret_until = models.DateTimeField(null=True, blank=True)
    status = models.CharField(
        max_length=10, choices=EndpointStatus.choices, default=EndpointStatus.ACTIVE
    )
    disabled_reason = models.CharField(max_length=200, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_failure_at = models.DateTimeField(null=True, blank=True)
    # When the current run of failures began (None while healthy).
    failing_since = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"endpoint of {self.host_id} ({self.status})"

    def signing_secrets(self, *, now) -> list[str]:
        """The current secret, plus the previous one during its grace window."""
        secrets = [decrypt_text(self.secret_encrypted)]
        if (
            self.previous_secret_encrypted
            and self.previous_secret_until
            and self.previous_secret_until > now
        ):
            secrets.append(decrypt_text(self.previous_secret_encrypted))
        return secrets


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"  # due at next_attempt_at
    DELIVERED = "delivered"
    FAILED = "failed"  # retries exhausted, or a permanent failure
    HELD = "held"  # its stream is paused; sent on release
    NO_ENDPOINT = "no_endpoint"  # recorded while the host had no endpoint; see recover
    DISABLED = "disabled"  # the endpoint was disabled; sent again when it is enabled


class HostDelivery(models.Model):
    """One message for the host, sent (and retried) under one webhook-id."""

    seq = models.BigAutoField(primary_key=True)  # creation order (pull, log)
    public_id = models.CharField(max_length=40, unique=True, default=id_factory("dlv"))
    webhook_id = models.CharField(max_length=40, unique=True, default=id_factory("msg"))
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="deliveries")
    # The ordered stream the row belongs to (a subscription's id), or "".
    # Not a foreign key: the outbox sits below the apps whose streams it carries.
    stream = models.CharField(max_length=40, blank=True, default="")
    type = models.CharField(max_length=40)
    body = models.JSONField()  # {"type", "timestamp", "data"}: exactly what is POSTed
    status = models.CharField(
        max_length=12, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    # When a send task was last put on the broker, and how long the current
    # sender holds it: the sweeper re-enqueues rows whose task was lost.
    enqueued_at = models.DateTimeField(null=True, blank=True)
    claimed_until = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.IntegerField(null=True, blank=True)
    last_error_category = models.CharField(max_length=40, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-seq"]
        verbose_name_plural = "host deliveries"
        indexes = [
            # The sender/sweeper: pending rows by due time.
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status="pending"),
                name="host_delivery_due_idx",
            ),
            # The delivery log (API, staff page): one host's rows, newest first.
            models.Index(fields=["host", "-seq"], name="host_delivery_log_idx"),
            # Pull delivery and release: one stream's rows in order.
            models.Index(fields=["stream", "seq"], name="host_delivery_stream_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.webhook_id} ({self.status})"


class DeliveryAttempt(models.Model):
    """One POST to the host endpoint. Never the response body.

    Written when the sender claims the row, before the POST, and completed
    after it: an attempt whose sender died (or lost the database) in between
    is still in the log, and is closed as ``worker_lost`` when the row is
    claimed again.
    """

    id = models.BigAutoField(primary_key=True)
    delivery = models.ForeignKey(HostDelivery, on_delete=models.CASCADE, related_name="tries")
    at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)  # None: in flight
    status_code = models.IntegerField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    error_category = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.status_code or self.error_category} after {self.duration_ms} ms"
