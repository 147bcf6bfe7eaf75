import hashlib
import json

from django.db import models

from switchboard.crypto import EncryptedJSONField
from switchboard.ids import id_factory
from switchboard.models.base import TimeStamped
from switchboard.models.hosts import Host
from switchboard.models.users import User


class Trust(models.TextChoices):
    TRUSTED = "trusted"
    UNTRUSTED = "untrusted"


class ServerStatus(models.TextChoices):
    PENDING = "pending"  # registered, first sync not done yet
    ACTIVE = "active"
    UNREACHABLE = "unreachable"
    HOST_MANAGED = "host_managed"  # no URL: the host talks to it (e.g. stdio)


class EventsDialectChoice(models.TextChoices):
    AUTO = "auto"
    SEP = "sep-3415", "SEP-3415"
    CHATGPT = "chatgpt", "ChatGPT"


class ListChanges(models.TextChoices):
    LISTEN = "listen"
    RELIST = "relist"


class McpServer(TimeStamped):
    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("srv"), editable=False
    )
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="servers")
    name = models.CharField(max_length=200)
    url = models.URLField(max_length=2000, blank=True)
    # Host-level credentials (e.g. Authorization) sent on every call unless
    # the user has their own. Encrypted; never returned or logged.
    headers = EncryptedJSONField(null=True, blank=True)
    trust = models.CharField(max_length=16, choices=Trust.choices, default=Trust.UNTRUSTED)
    priority = models.IntegerField(default=100)
    status = models.CharField(
        max_length=16, choices=ServerStatus.choices, default=ServerStatus.PENDING
    )
    last_error = models.CharField(max_length=40, blank=True)
    last_error_detail = models.TextField(blank=True)
    capabilities = models.JSONField(default=dict, blank=True)
    # Where each capability was found (e.g. {"events": "extensions"}).
    capability_sources = models.JSONField(default=dict, blank=True)
    conversation_events = models.BooleanField(default=False)
    # The events dialect (switchboard.mcp.dialects): as detected at sync and
    # confirmed by the server's error codes, and what staff set by hand.
    events_dialect_detected = models.CharField(max_length=12, blank=True)
    events_dialect_confirmed = models.BooleanField(default=False)
    events_dialect_evidence = models.CharField(max_length=200, blank=True)
    events_dialect_override = models.CharField(
        max_length=12, choices=EventsDialectChoice.choices, default=EventsDialectChoice.AUTO
    )
    # Require the server's ed25519 signature (``v1a``) on every delivery, by
    # a key it publishes (switchboard.mcp.identity). Staff turn it on.
    events_enforce_identity = models.BooleanField(default=False)
    # MCPE: whether subscriptions may hand this server a `bash` handler (a
    # command it runs when events arrive). Off unless staff switch it on.
    mcpe_bash_handlers = models.BooleanField(default=False)
    # How we learn that its event types changed (case 59): "listen" = a held
    # subscriptions/listen with eventsListChanged that it acknowledged;
    # "relist" = it did not acknowledge that, so only the periodic re-sync;
    # "" = not known yet (or it declares no listChanged).
    events_list_changes = models.CharField(
        max_length=8, choices=ListChanges.choices, blank=True, default=""
    )
    protocol_version = models.CharField(max_length=20, blank=True)
    last_synced_at = models.DateTimeField(null=True, blank=True)
    next_sync_at = models.DateTimeField(null=True, blank=True)
    sync_failures = models.PositiveIntegerField(default=0)
    deleted_at = models.DateTimeField(null=True, blank=True)
    # The kill switch (``server_block``): while set, nothing reaches the
    # server — no message, hook, subscription, refresh or sync.
    blocked_at = models.DateTimeField(null=True, blank=True)
    blocked_by = models.CharField(max_length=200, blank=True)
    # "staff" (the kill switch) or "policy" (the host policy now denies it):
    # each lifts only its own block.
    blocked_reason = models.CharField(max_length=8, blank=True)

    class Meta:
        ordering = ["priority", "name"]
        indexes = [
            # Beat's "which servers are due for a sync" query.
            models.Index(fields=["next_sync_at"], name="server_due_sync_idx"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def events_dialect(self) -> str:
        """The dialect we speak to it: staff's choice, else the detected one
        ("" when it offers no events)."""
        if self.events_dialect_override != EventsDialectChoice.AUTO:
            return self.events_dialect_override
        return self.events_dialect_detected

    @property
    def events_error_dialect(self) -> str:
        """The dialect to read its error codes in: "" while an ambiguous
        detection (the capability in both places) waits for the server's
        first typed error, which then speaks for itself (docs/events-client.md §8)."""
        if self.events_dialect_override != EventsDialectChoice.AUTO:
            return self.events_dialect_override
        return self.events_dialect_detected if self.events_dialect_confirmed else ""

    @property
    def header_names(self) -> list[str]:
        """The names of the host-level headers we send (lowercased: HTTP
        names are case-insensitive). Never their values."""
        return sorted({name.lower() for name in (self.headers or {})})

    @property
    def registration_hash(self) -> str:
        """SHA-256 over where we send a user's data and under which credential
        names: a grant records it, and a change of either asks users again.
        A new value under the same header name (a rotated token) keeps it."""
        registration = {"url": self.url, "header_names": self.header_names}
        canonical = json.dumps(registration, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()


class UserServerCredential(TimeStamped):
    """A user's own headers for one server: the principal the server sees for them."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="server_credentials")
    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="user_credentials")
    headers = EncryptedJSONField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "server"], name="credential_unique_user_server")
        ]

    def __str__(self) -> str:
        return f"credentials of {self.user_id} for {self.server_id}"


class EventType(TimeStamped):
    """One event type a server offers (events/list), as last synced."""

    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="event_types")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    delivery = models.JSONField(default=list, blank=True)
    input_schema = models.JSONField(default=dict, blank=True)
    payload_schema = models.JSONField(default=dict, blank=True)
    raw = models.JSONField(default=dict, blank=True)
    removed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["server", "name"], name="event_type_unique_per_server")
        ]

    def __str__(self) -> str:
        return self.name


class HookDeclaration(TimeStamped):
    """One SEP-2282 hook declaration, kept verbatim. A changed declaration has
    a new ``hook_id``; the old row stays (``removed_at``) so consent history
    keeps pointing at what the user actually saw."""

    server = models.ForeignKey(
        McpServer, on_delete=models.CASCADE, related_name="hook_declarations"
    )
    hook_id = models.CharField(max_length=80)
    event = models.CharField(max_length=60, blank=True)
    priority = models.CharField(max_length=20, blank=True)
    raw = models.JSONField()
    valid = models.BooleanField(default=False)
    problems = models.JSONField(default=list, blank=True)
    removed_at = models.DateTimeField(null=True, blank=True)
    last_fired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["event", "hook_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["server", "hook_id"], name="hook_declaration_unique_per_server"
            )
        ]

    def __str__(self) -> str:
        return self.hook_id
