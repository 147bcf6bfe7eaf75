from django.db import models
from django.db.models import Q

from switchboard.ids import id_factory
from switchboard.models import Host, McpServer, User
from switchboard.models.base import TimeStamped


class Scope(models.TextChoices):
    CONVERSATION_READ = "conversation:read"
    HOOKS = "hooks"
    EVENTS = "events"


class GrantStatus(models.TextChoices):
    PENDING = "pending"
    ACTIVE = "active"
    DENIED = "denied"
    REVOKED = "revoked"
    EXPIRED = "expired"
    SUSPENDED = "suspended"  # the server's declarations changed since approval


# A grant in one of these states still "occupies" its (user, server, scope):
# a new request updates it instead of adding a second one.
OPEN_STATUSES = (GrantStatus.PENDING, GrantStatus.ACTIVE, GrantStatus.SUSPENDED)


class Identity(models.TextChoices):
    USER = "user"  # the user's own credentials for that server
    HOST = "host"  # the host-level headers of the server


class Channel(models.TextChoices):
    BROWSER = "browser"
    STAFF = "staff"  # staff acted on the user's behalf (marked as such)
    API = "api"


class Grant(TimeStamped):
    """What one user allowed one server to do, exactly as they saw it."""

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("grt"), editable=False
    )
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="grants")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="grants")
    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="grants")
    scope = models.CharField(max_length=32, choices=Scope.choices)
    status = models.CharField(
        max_length=16, choices=GrantStatus.choices, default=GrantStatus.PENDING
    )
    approved_hook_ids = models.JSONField(default=list, blank=True)
    approved_event_types = models.JSONField(default=list, blank=True)
    # What the user was shown (declaration texts, event types) and its hash,
    # so "who allowed what" can be proven later and changes detected.
    shown = models.JSONField(default=dict, blank=True)
    declaration_hash = models.CharField(max_length=64, blank=True)
    identity = models.CharField(max_length=8, choices=Identity.choices, default=Identity.HOST)
    channel = models.CharField(max_length=16, choices=Channel.choices, default=Channel.BROWSER)
    decided_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    granted_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "server", "scope"],
                condition=Q(status__in=["pending", "active", "suspended"]),
                name="grant_one_open_per_user_server_scope",
            ),
        ]
        indexes = [
            # grant_is_live: the hot path of every message, hook and subscription.
            models.Index(
                fields=["user", "server", "scope", "status"], name="grant_live_lookup_idx"
            ),
            # The expiry sweep.
            models.Index(fields=["status", "expires_at"], name="grant_expiry_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.scope} for {self.server_id} ({self.status})"
