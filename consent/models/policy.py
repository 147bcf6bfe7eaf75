"""The host's policy for all its users, with the settings' defaults until
its staff first save it."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from switchboard.models import Host
from switchboard.models.base import TimeStamped


def default_budget_ms() -> int:
    return round(settings.CONVERSATION_BUDGET * 1000)


def default_max_chars_per_message() -> int:
    return settings.CONVERSATION_MAX_CHARS_PER_MESSAGE


def default_max_chars_per_server() -> int:
    return settings.CONVERSATION_MAX_CHARS_PER_SERVER


class ServerListMode(models.TextChoices):
    OFF = "off", "Every registered server may ask"
    ALLOW = "allow", "Only the listed servers may ask"
    DENY = "deny", "Every server except the listed ones may ask"


class HostPolicy(TimeStamped):
    """What a host's staff decided for all its users. One row per host,
    created on first save; until then the settings' defaults apply."""

    host = models.OneToOneField(
        Host, primary_key=True, on_delete=models.CASCADE, related_name="consent_policy"
    )
    server_list_mode = models.CharField(
        max_length=8, choices=ServerListMode.choices, default=ServerListMode.OFF
    )
    # Server ids, not a many-to-many: the conversation hot path reads the
    # policy in the same query as everything else.
    listed_server_ids = models.JSONField(default=list, blank=True)
    # `required` hooks are honoured only from trusted servers; others are
    # downgraded to `important`.
    required_hooks_trusted_only = models.BooleanField(default=True)
    # Servers not marked trusted fire only static `context` hooks: no
    # `context_tool` call, which would hand them the event's matcher data.
    context_tools_trusted_only = models.BooleanField(default=False)
    max_chars_per_message = models.PositiveIntegerField(default=default_max_chars_per_message)
    max_chars_per_server = models.PositiveIntegerField(default=default_max_chars_per_server)
    conversation_budget_ms = models.PositiveIntegerField(default=default_budget_ms)

    class Meta:
        verbose_name_plural = "host policies"
        constraints = [
            models.CheckConstraint(
                condition=Q(conversation_budget_ms__gte=50, conversation_budget_ms__lte=10_000),
                name="host_policy_budget_range",
            ),
        ]

    def __str__(self) -> str:
        return f"policy of {self.host_id}"

    def allows_server(self, server_id: str) -> bool:
        if self.server_list_mode == ServerListMode.ALLOW:
            return server_id in self.listed_server_ids
        if self.server_list_mode == ServerListMode.DENY:
            return server_id not in self.listed_server_ids
        return True

    def effective_hook_priority(self, *, priority: str, trusted: bool) -> str:
        if priority == "required" and self.required_hooks_trusted_only and not trusted:
            return "important"
        return priority
