"""Conversations: a thread's servers, each server's timeouts on
conversation events, and what each server injected into a user message."""

from django.db import models
from django.db.models import Q

from consent.models.grants import Grant
from switchboard.ids import id_factory
from switchboard.models import Host, McpServer, User
from switchboard.models.base import TimeStamped


class ServerConversationState(TimeStamped):
    """Timeouts of one server on conversation events, and whether that got
    it disabled for them (host-wide: a slow server slows every user)."""

    server = models.OneToOneField(
        McpServer, primary_key=True, on_delete=models.CASCADE, related_name="conversation_state"
    )
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="+")
    consecutive_timeouts = models.PositiveIntegerField(default=0)
    last_timeout_at = models.DateTimeField(null=True, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=40, blank=True)

    def __str__(self) -> str:
        state = "disabled" if self.disabled_at else "enabled"
        return f"conversation events of {self.server_id}: {state}"


class Conversation(TimeStamped):
    """A host's conversation thread: the servers "in" it are the union of
    those the host listed on calls for it. It belongs to the host that first
    used its id (another host gets 404)."""

    conversation_id = models.CharField(max_length=200, unique=True)
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="conversations")
    server_ids = models.JSONField(default=list, blank=True)

    def __str__(self) -> str:
        return self.conversation_id


class InjectionOutcome(models.TextChoices):
    OK = "ok"
    TIMEOUT = "timeout"
    ERROR = "error"
    OVER_BUDGET = "over_budget"  # answered, but the host's caps were already reached


class InjectionSource(models.TextChoices):
    CONSOLE = "console"  # we called the server (conversation fan-out)
    HOST = "host"  # the host called it itself and reported it


class Injection(models.Model):
    """One server's part in one user message: what it returned and what of it
    was injected. The text is erased after INJECTION_TEXT_RETENTION and when
    the user is deleted; the row (who, when, how much) stays."""

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("inj"), editable=False
    )
    created_at = models.DateTimeField(db_index=True)
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="injections")
    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="injections")
    grant = models.ForeignKey(
        Grant, null=True, blank=True, on_delete=models.SET_NULL, related_name="injections"
    )
    conversation_id = models.CharField(max_length=200)
    message_id = models.CharField(max_length=200)
    source = models.CharField(max_length=8, choices=InjectionSource.choices)
    outcome = models.CharField(max_length=12, choices=InjectionOutcome.choices)
    latency_ms = models.PositiveIntegerField(default=0)
    chars = models.PositiveIntegerField(default=0)
    truncated = models.BooleanField(default=False)
    text = models.TextField(blank=True)
    structured = models.JSONField(null=True, blank=True)
    error = models.CharField(max_length=200, blank=True)
    purged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # "What was injected into my conversations" and the staff list.
            models.Index(fields=["user", "-created_at"], name="injection_user_idx"),
            models.Index(fields=["host", "-created_at"], name="injection_host_idx"),
            # The retention sweep: rows whose text is still kept, oldest first.
            models.Index(
                fields=["created_at"],
                condition=Q(purged_at__isnull=True),
                name="injection_text_kept_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.server_id} → {self.message_id}: {self.outcome}"
