"""Event subscriptions (webhook mode) and what they received.

An MCP server POSTs signed deliveries to ``/webhooks/mcp/<token>`` (one token
per ``Subscription``); each accepted one is a ``ReceivedEvent``. What the host
hears of them goes through the outbox (``outbox``), keyed by the
subscription's id as its stream.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from switchboard.crypto import decrypt_text, encrypt_text
from switchboard.ids import id_factory
from switchboard.models import Host, McpServer, User
from switchboard.models.base import TimeStamped
from switchboard.patterns import pattern_in_words


class Mode(models.TextChoices):
    WEBHOOK = "webhook"
    PUSH = "push"
    POLL = "poll"
    # An MCPE server's subscription: made with its tools over a session the
    # session worker holds for the user and server (services.mcpe).
    MCPE = "mcpe"


class SubscriptionStatus(models.TextChoices):
    PENDING = "pending"  # being created: committed, events/subscribe in flight
    PENDING_CONSENT = "pending_consent"  # waiting for a live `events` grant
    ACTIVE = "active"
    PAUSED = "paused"  # kept alive on the server; forwarding to the host held
    SUSPENDED = "suspended"  # the server reported failed delivery (deliveryStatus.active=false)
    EXPIRED = "expired"  # the grant lapsed; being subscribed again
    TERMINATED = "terminated"  # the server ended it
    REVOKED = "revoked"  # we ended it (API, user, consent withdrawn)
    FAILED = "failed"  # the server refused it; see last_error


class UnsubscribeState(models.TextChoices):
    """``events/unsubscribe`` owed to the server after we ended a subscription
    it held (docs/host-integration.md). Blank: none owed."""

    PENDING = "pending"  # being tried, with backoff; the receiver answers 410 meanwhile
    DONE = "done"  # the server removed it (or had already forgotten it)
    FAILED = "failed"  # it refused or was unreachable every time: in the ledger


# Statuses that occupy the (user, server, event, arguments) key: a second
# create answers the existing one instead of adding another.
LIVE_STATUSES = (
    SubscriptionStatus.PENDING,
    SubscriptionStatus.PENDING_CONSENT,
    SubscriptionStatus.ACTIVE,
    SubscriptionStatus.PAUSED,
    SubscriptionStatus.SUSPENDED,
    SubscriptionStatus.EXPIRED,
)
# Statuses in which the server may hold it: deliveries are accepted, refresh runs.
RUNNING_STATUSES = (
    SubscriptionStatus.PENDING,
    SubscriptionStatus.ACTIVE,
    SubscriptionStatus.PAUSED,
    SubscriptionStatus.SUSPENDED,
    SubscriptionStatus.EXPIRED,
)
# Tombstones: later deliveries answer 410.
DEAD_STATUSES = (
    SubscriptionStatus.TERMINATED,
    SubscriptionStatus.REVOKED,
    SubscriptionStatus.FAILED,
)


class Subscription(TimeStamped):
    """One subscription Switchboard holds on a server for one user.

    The server knows it by (principal, delivery.url, name, arguments); our
    delivery.url carries ``token``, so the receiver finds it (and its secret)
    before the server's ``remote_id`` is known.
    """

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("sub"), editable=False
    )
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="subscriptions")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="subscriptions")
    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="subscriptions")
    event_name = models.CharField(max_length=200)
    arguments = models.JSONField(default=dict, blank=True)
    # SHA-256 of the canonical JSON of ``arguments``: part of the identity key.
    arguments_key = models.CharField(max_length=64)
    mode = models.CharField(max_length=8, choices=Mode.choices, default=Mode.WEBHOOK)
    status = models.CharField(
        max_length=16, choices=SubscriptionStatus.choices, default=SubscriptionStatus.PENDING
    )
    # A stable category (a lastError value or a spec error name) and a human message.
    last_error = models.CharField(max_length=40, blank=True)
    last_error_message = models.CharField(max_length=500, blank=True)

    # The receiver URL's path token (unguessable) and the signing secrets.
    token = models.CharField(max_length=64, unique=True)
    secret_encrypted = models.TextField()
    previous_secret_encrypted = models.TextField(blank=True)
    previous_secret_until = models.DateTimeField(null=True, blank=True)
    # The server's id (X-MCP-Subscription-Id), bound from the subscribe answer
    # or the first verified delivery.
    remote_id = models.CharField(max_length=200, blank=True)

    # What we ask for: ttl_ms None = "no expiry"; max_age_ms bounds catch-up.
    ttl_ms = models.BigIntegerField(null=True, blank=True)
    max_age_ms = models.BigIntegerField(null=True, blank=True)

    # The last persisted position. ``cursor_event_at`` is the occurrence time of
    # the event that set it (None when a server answer or gap set it), so an
    # older retried event never moves it back past a newer one.
    cursor = models.TextField(null=True, blank=True)
    cursor_event_at = models.DateTimeField(null=True, blank=True)
    truncated = models.BooleanField(default=False)
    last_gap_at = models.DateTimeField(null=True, blank=True)

    # The grant: refreshBefore (None = no expiry), when it was granted, and the
    # scheduler's due time (indexed) and claim.
    refresh_before = models.DateTimeField(null=True, blank=True)
    last_refreshed_at = models.DateTimeField(null=True, blank=True)
    next_refresh_at = models.DateTimeField(null=True, blank=True)
    refresh_claimed_until = models.DateTimeField(null=True, blank=True)
    refresh_failures = models.PositiveIntegerField(default=0)
    delivery_status = models.JSONField(null=True, blank=True)

    # Poll mode: when the next events/poll is due (indexed; beat reads it) and
    # when the last one answered. The claim is ``refresh_claimed_until``, the
    # failures ``refresh_failures``: a poll subscription never refreshes.
    next_poll_at = models.DateTimeField(null=True, blank=True)
    last_polled_at = models.DateTimeField(null=True, blank=True)

    verified_at = models.DateTimeField(null=True, blank=True)
    last_event_at = models.DateTimeField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)

    # The host's filter (docs/host-integration.md; switchboard.patterns.EventFilter as
    # JSON, {} = everything): applied before forwarding; what it held back is
    # counted, never forwarded. ``expires_at``: revoked then (beat, indexed).
    filter = models.JSONField(default=dict, blank=True)
    filtered_count = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField(null=True, blank=True)
    # How the host receives it (services.channels): {} = realtime; a cron or
    # scheduled digest collects events (ReceivedEvent.digest_state) from
    # ``digest_from`` and is sent at ``next_digest_at`` (indexed; beat).
    channel = models.JSONField(default=dict, blank=True)
    next_digest_at = models.DateTimeField(null=True, blank=True)
    digest_from = models.DateTimeField(null=True, blank=True)
    # MCPE: what the server holds, as we last set it: "active" or "paused",
    # and a digest of the arguments sent (a changed filter means events_update).
    remote_state = models.CharField(max_length=12, blank=True)
    remote_config = models.CharField(max_length=64, blank=True)
    # MCPE: the handler the server runs when events arrive, as the host's
    # policy allowed it (services.handlers); {} = none.
    handler = models.JSONField(default=dict, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    # The unsubscribe owed once we ended it: state, tries so far, the last
    # error, and when the next try is due (indexed, claimed by moving it on).
    unsubscribe_state = models.CharField(
        max_length=8, choices=UnsubscribeState.choices, blank=True, default=""
    )
    unsubscribe_attempts = models.PositiveIntegerField(default=0)
    unsubscribe_last_error = models.CharField(max_length=300, blank=True)
    unsubscribe_next_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "server", "event_name", "arguments_key"],
                condition=Q(status__in=[s.value for s in LIVE_STATUSES]),
                name="subscription_one_live_per_key",
            ),
        ]
        indexes = [
            # subscriptions_due_for_refresh: only rows with a due time, by due time.
            models.Index(
                fields=["next_refresh_at"],
                condition=Q(next_refresh_at__isnull=False),
                name="subscription_due_refresh_idx",
            ),
            # subscriptions_due_for_poll: only polling rows, by due time.
            models.Index(
                fields=["next_poll_at"],
                condition=Q(next_poll_at__isnull=False),
                name="subscription_due_poll_idx",
            ),
            # subscriptions_expire_due: only rows with an expiry, by time.
            models.Index(
                fields=["expires_at"],
                condition=Q(expires_at__isnull=False),
                name="subscription_expires_idx",
            ),
            # subscriptions_digest_due: only digest rows, by due time.
            models.Index(
                fields=["next_digest_at"],
                condition=Q(next_digest_at__isnull=False),
                name="subscription_due_digest_idx",
            ),
            # Unsubscribes due for another try.
            models.Index(
                fields=["unsubscribe_next_at"],
                condition=Q(unsubscribe_state="pending"),
                name="subscription_unsubscribe_idx",
            ),
            # API and staff lists: one host's subscriptions, newest first, by status.
            models.Index(fields=["host", "status", "-created_at"], name="subscription_host_idx"),
            # A user's page; consent reactions (user, server).
            models.Index(fields=["user", "server", "status"], name="subscription_user_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.subject} for {self.user_id} ({self.status})"

    @property
    def held_as(self) -> tuple[str, str] | None:
        """The session worker's (kind, item) holding it: its own push stream,
        or the MCPE session of its user and server; None for other modes."""
        if self.mode == Mode.PUSH:
            return "push", self.id
        if self.mode == Mode.MCPE:
            return "mcpe", mcpe_session_item(self.user_id, self.server_id)
        return None

    @property
    def subject(self) -> str:
        """What it is about, for people: the event type, or for an MCPE
        subscription its filter's patterns in plain words."""
        if self.event_name:
            return self.event_name
        patterns = (self.filter or {}).get("event_types") or ["*"]
        return "; ".join(pattern_in_words(p) for p in patterns)

    @property
    def secret(self) -> str:
        return decrypt_text(self.secret_encrypted)

    @secret.setter
    def secret(self, value: str) -> None:
        self.secret_encrypted = encrypt_text(value)

    @property
    def previous_secret(self) -> str:
        return (
            decrypt_text(self.previous_secret_encrypted) if self.previous_secret_encrypted else ""
        )

    @property
    def is_dead(self) -> bool:
        return self.status in DEAD_STATUSES

    @property
    def is_live(self) -> bool:
        return self.status in LIVE_STATUSES


class ReceivedKind(models.TextChoices):
    EVENT = "event"
    GAP = "gap"
    TERMINATED = "terminated"
    CONTROL = "control"  # a control envelope of a type we do not know: kept as it came


def mcpe_session_item(user_id: str, server_id: str) -> str:
    """The session worker's item for the MCPE session of one user and server."""
    return f"{user_id}+{server_id}"


def mcpe_session_pair(item: str) -> tuple[str, str]:
    """The user id and server id of an MCPE session's item."""
    user_id, _, server_id = item.partition("+")
    return user_id, server_id


class DigestState(models.TextChoices):
    """An event of a digest subscription: waiting for the next digest, sent in
    one, or left out of a full one (``max_events``; the digest said
    ``truncated``). ``direct``: not a digest's (forwarded at once, or held
    back by the filter)."""

    DIRECT = "direct", "forwarded on its own"
    WAITING = "waiting", "waiting for the digest"
    SENT = "sent", "sent in a digest"
    DROPPED = "dropped", "left out of a full digest"


class ReceivedEvent(models.Model):
    """One verified delivery from a server: an event or a control envelope.

    Deduplication is two constraints: events on ``eventId`` from the
    verified body, envelopes on ``webhook-id`` (the two need not be equal,
    case 60), so concurrent duplicates are resolved by the database.
    """

    id = models.BigAutoField(primary_key=True)  # arrival order; never in a URL
    subscription = models.ForeignKey(
        Subscription, on_delete=models.CASCADE, related_name="received"
    )
    kind = models.CharField(max_length=12, choices=ReceivedKind.choices)
    webhook_id = models.CharField(max_length=200)
    event_id = models.CharField(max_length=200, null=True, blank=True)
    # The body as the server sent it (parsed): untrusted, shown escaped only.
    body = models.JSONField()
    cursor = models.TextField(null=True, blank=True)
    occurred_at = models.DateTimeField(null=True, blank=True)
    received_at = models.DateTimeField(auto_now_add=True)
    digest_state = models.CharField(
        max_length=8, choices=DigestState.choices, default=DigestState.DIRECT
    )

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["subscription", "webhook_id"],
                condition=Q(event_id__isnull=True),
                name="received_unique_envelope_webhook_id",
            ),
            models.UniqueConstraint(
                fields=["subscription", "event_id"],
                condition=Q(event_id__isnull=False),
                name="received_unique_event_id",
            ),
        ]
        indexes = [
            # The detail page: one subscription's deliveries, newest first.
            models.Index(fields=["subscription", "-id"], name="received_sub_idx"),
            # A digest's events: only those waiting, in arrival order.
            models.Index(
                fields=["subscription", "id"],
                condition=Q(digest_state="waiting"),
                name="received_digest_waiting_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.event_id or self.webhook_id}"


class RefreshKind(models.TextChoices):
    SUBSCRIBE = "subscribe"
    REFRESH = "refresh"
    RESUBSCRIBE = "resubscribe"
    ROTATE = "rotate"
    UNSUBSCRIBE = "unsubscribe"


class RefreshAttempt(models.Model):
    """One events/subscribe or events/unsubscribe call and what came of it."""

    id = models.BigAutoField(primary_key=True)
    subscription = models.ForeignKey(
        Subscription, on_delete=models.CASCADE, related_name="refreshes"
    )
    at = models.DateTimeField(auto_now_add=True)
    kind = models.CharField(max_length=12, choices=RefreshKind.choices)
    ok = models.BooleanField(default=False)
    error_category = models.CharField(max_length=40, blank=True)
    error_code = models.IntegerField(null=True, blank=True)
    message = models.CharField(max_length=500, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    refresh_before = models.DateTimeField(null=True, blank=True)
    truncated = models.BooleanField(default=False)
    delivery_status = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["subscription", "-id"], name="refresh_sub_idx")]

    def __str__(self) -> str:
        return f"{self.kind} {'ok' if self.ok else self.error_category}"


class ReceiverWatch(models.Model):
    """When our webhook receiver was last seen answering, through the URL the
    servers use (one row). A longer silence than a server's retry window
    means its deliveries may have been dropped upstream (``services/watch.py``)."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    last_seen_up_at = models.DateTimeField(null=True, blank=True)
    # The last silence longer than the shortest retry window.
    last_outage_seconds = models.FloatField(null=True, blank=True)

    def __str__(self) -> str:
        return f"receiver last seen {self.last_seen_up_at}"


class TaskStatus(models.TextChoices):
    """A server task's status as ``tasks/get`` last said (2025-11-25 tasks)."""

    WORKING = "working"
    INPUT_REQUIRED = "input_required"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


TERMINAL_TASK_STATUSES = (TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED)


class TaskWatch(TimeStamped):
    """A server task whose ``eventSource`` the console follows (conformance case 49,
    behind TASK_EVENT_SOURCES). The host created the task and handed it over;
    the console subscribed to its event source and asks ``tasks/get`` until
    the task is terminal, then ends that subscription. The subscription's fate
    never decides the task's: a failed subscribe is kept in
    ``subscription_error`` and the watching goes on."""

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("tsk"), editable=False
    )
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="task_watches")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="task_watches")
    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="task_watches")
    task_id = models.CharField(max_length=200)
    status = models.CharField(max_length=16, choices=TaskStatus.choices, default=TaskStatus.WORKING)
    status_message = models.CharField(max_length=500, blank=True)
    # The server's eventSource as the host handed it: {name, input, initialCursor?}.
    event_source = models.JSONField(default=dict)
    subscription = models.ForeignKey(
        Subscription,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="task_watches",
    )
    # Whether ending this task ends the subscription. Another task with the
    # same event source and input shares the live subscription (one per key):
    # the one that made it owns it, and hands it on when it ends first. A
    # subscription the host made itself is never owned by a task.
    owns_subscription = models.BooleanField(default=False)
    # Why no subscription came of the event source: {code, message, field?}.
    subscription_error = models.JSONField(null=True, blank=True)
    # The server's pollInterval (ms), when it gave one.
    poll_interval_ms = models.PositiveIntegerField(null=True, blank=True)
    # When the next tasks/get is due (indexed; beat reads it); None once ended.
    next_check_at = models.DateTimeField(null=True, blank=True)
    last_checked_at = models.DateTimeField(null=True, blank=True)
    check_failures = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["server", "user", "task_id"], name="task_watch_one_per_task"
            ),
        ]
        indexes = [
            models.Index(
                fields=["next_check_at"],
                condition=Q(next_check_at__isnull=False),
                name="task_watch_due_idx",
            ),
            models.Index(fields=["host", "-created_at"], name="task_watch_host_idx"),
        ]

    def __str__(self) -> str:
        return f"task {self.task_id} on {self.server_id} ({self.status})"
