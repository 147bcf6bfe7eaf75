from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from switchboard.ids import id_factory
from switchboard.models import Host, McpServer, User, UserGroup
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
    SUSPENDED = "suspended"  # the server's declarations or registration changed since approval


class SuspendedReason(models.TextChoices):
    """Why a grant is on hold (``Grant.suspended_reason``), shown to the user and staff."""

    DECLARATIONS_CHANGED = "declarations_changed"
    SERVER_BLOCKED = "server_blocked"
    URL_CHANGED = "url_changed"  # the server's registration points elsewhere
    CREDENTIALS_CHANGED = "credentials_changed"  # other header names are sent


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
    ORGANISATION = "organisation"  # an organisation grant given to the user's group


class GrantQuerySet(models.QuerySet["Grant"]):
    def live(self, *, at: datetime | None = None) -> "GrantQuerySet":
        """Grants in force at ``at`` (now): approved and not past their expiry.

        The one definition of "live" for the ORM. The expiry sweep closes
        expired grants only every so often, so ``status="active"`` alone
        would count a grant whose time is up. (The message plan's raw SQL in
        ``consent/plan_sql.py`` repeats this condition; its tests compare the two.)
        """
        now = at or timezone.now()
        return (
            self.filter(status=GrantStatus.ACTIVE)
            .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
            .filter(Q(org_grant__isnull=True) | org_grant_applies(now))
        )


def org_grant_applies(now: datetime) -> Q:
    """A member's grant from an organisation grant is live only while that
    grant is active and unexpired and the user is, at this very call, in one
    of its groups (or it is for everyone): leaving a group ends it at once,
    whatever else has caught up. Repeated as SQL in ``consent/plan_sql.py``."""
    in_a_group = Exists(
        OrgGrantGroup.objects.filter(
            org_grant_id=OuterRef("org_grant_id"),
            name__in=UserGroup.objects.filter(user_id=OuterRef(OuterRef("user_id"))).values("name"),
        )
    )
    return (
        Q(org_grant__status=OrgGrantStatus.ACTIVE)
        & (Q(org_grant__expires_at__isnull=True) | Q(org_grant__expires_at__gt=now))
        & (Q(org_grant__all_users=True) | Q(in_a_group))
    )


class OrgGrantStatus(models.TextChoices):
    ACTIVE = "active"
    SUSPENDED = "suspended"  # the server changed, or was blocked: an admin approves again
    EXPIRED = "expired"
    ENDED = "ended"  # an admin ended it (DELETE)


class OrgGrant(TimeStamped):
    """An admin allowed a server for a group (or everyone), with no prompt.

    Each member holds a ``Grant`` of their own for it (``Grant.org_grant``),
    so every path that reads consent reads theirs; ``Grant.objects.live``
    also checks this row and the member's groups at every call."""

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("ogr"), editable=False
    )
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="org_grants")
    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="org_grants")
    scopes = models.JSONField(default=list)
    event_types = models.JSONField(default=list, blank=True)
    hook_ids = models.JSONField(default=list, blank=True)
    # As given (["*"] or names); the names are also rows (OrgGrantGroup) so
    # membership joins in SQL on both databases.
    groups = models.JSONField(default=list)
    all_users = models.BooleanField(default=False)
    user_can_revoke = models.BooleanField(default=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=OrgGrantStatus.choices, default=OrgGrantStatus.ACTIVE
    )
    # Who allowed it, as members are shown it: a staff member's email, or
    # the API key's label (and on whose behalf).
    created_by = models.CharField(max_length=300)
    created_by_user = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    suspended_at = models.DateTimeField(null=True, blank=True)
    suspended_reason = models.CharField(max_length=40, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    ended_by = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # The staff list, and the active grants a changed membership reads.
            models.Index(fields=["host", "status"], name="org_grant_host_status_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.server_id} for {', '.join(self.groups)} ({self.status})"

    @property
    def status_now(self) -> str:
        if (
            self.status == OrgGrantStatus.ACTIVE
            and self.expires_at is not None
            and self.expires_at <= timezone.now()
        ):
            return OrgGrantStatus.EXPIRED
        return self.status


class OrgGrantGroup(models.Model):
    """One group an organisation grant was given to."""

    org_grant = models.ForeignKey(OrgGrant, on_delete=models.CASCADE, related_name="group_rows")
    name = models.CharField(max_length=100)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["org_grant", "name"], name="org_grant_group_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.org_grant_id} for {self.name}"


class OrgGrantOptOut(models.Model):
    """A member turned an organisation grant off for themselves (only where
    ``user_can_revoke``): it is not given to them again while it lasts."""

    org_grant = models.ForeignKey(OrgGrant, on_delete=models.CASCADE, related_name="opt_outs")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    scope = models.CharField(max_length=32)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["org_grant", "user", "scope"], name="org_grant_opt_out_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} turned off {self.org_grant_id} ({self.scope})"


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
    # The snapshot the user last approved: kept while a suspended grant shows
    # the new declarations, so the page can say what changed.
    approved_shown = models.JSONField(default=dict, blank=True)
    approved_hash = models.CharField(max_length=64, blank=True)
    identity = models.CharField(max_length=8, choices=Identity.choices, default=Identity.HOST)
    channel = models.CharField(max_length=16, choices=Channel.choices, default=Channel.BROWSER)
    decided_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    granted_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    suspended_at = models.DateTimeField(null=True, blank=True)
    suspended_reason = models.CharField(max_length=24, choices=SuspendedReason.choices, blank=True)
    # The server as the user approved it: its URL and the hash of its
    # registration (McpServer.registration_hash: URL and header names). A
    # server changed under the same id suspends the grants that saw another.
    server_url = models.CharField(max_length=2000, blank=True)
    registration_hash = models.CharField(max_length=64, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    # Set for a member's grant that an organisation grant gave (source
    # "organisation"); null for consent the user gave themselves.
    org_grant = models.ForeignKey(
        "OrgGrant",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="member_grants",
    )

    objects = GrantQuerySet.as_manager()

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

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_STATUSES

    @property
    def status_now(self) -> str:
        """The status as of this moment, for pages: an active grant past its
        expiry is expired already, before the sweep gets round to recording it."""
        if (
            self.status == GrantStatus.ACTIVE
            and self.expires_at is not None
            and self.expires_at <= timezone.now()
        ):
            return GrantStatus.EXPIRED
        return self.status

    @property
    def revocable(self) -> bool:
        """What "Revoke" applies to: consent in force or on hold. A pending grant
        is answered on its request page, not revoked; an organisation's grant
        only where it lets its members turn it off."""
        if self.org_grant is not None and not self.org_grant.user_can_revoke:
            return False
        return self.status_now in (GrantStatus.ACTIVE, GrantStatus.SUSPENDED)

    @property
    def source(self) -> str:
        return "organisation" if self.org_grant_id is not None else "user"


class RequestStatus(models.TextChoices):
    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"
    PARTIALLY_APPROVED = "partially_approved"
    EXPIRED = "expired"


class RequestOrigin(models.TextChoices):
    HOST = "host"  # POST /api/v1/consent/requests
    DECLARATIONS_CHANGED = "declarations_changed"  # a grant was suspended: ask again
    REGISTRATION_CHANGED = "registration_changed"  # its URL or header names changed: ask again
    ACCESS_REQUEST = "access_request"  # the user asked for the server and staff approved


class ConsentRequest(TimeStamped):
    """One ask put to a user: a server wants some scopes. Its grants carry the
    decisions; the request remembers how it was decided and where to go back."""

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("req"), editable=False
    )
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="consent_requests")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="consent_requests")
    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="consent_requests")
    scopes = models.JSONField(default=list)
    event_types = models.JSONField(default=list, blank=True)
    # For each grant that was already active when this request asked: what the
    # request adds to it ({grant_id: {"hook_ids": [...], "event_types": [...]}}).
    # The user's answer applies to that and nothing else, so saying no to a new
    # ask never takes back what they allowed before.
    additions = models.JSONField(default=dict, blank=True)
    return_url = models.CharField(max_length=2000, blank=True)
    origin = models.CharField(
        max_length=24, choices=RequestOrigin.choices, default=RequestOrigin.HOST
    )
    status = models.CharField(
        max_length=20, choices=RequestStatus.choices, default=RequestStatus.PENDING
    )
    # sha256 over (user, server, scopes, event types): "the same open request".
    fingerprint = models.CharField(max_length=64)
    expires_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    channel = models.CharField(max_length=16, choices=Channel.choices, blank=True)
    grants = models.ManyToManyField(Grant, related_name="requests")

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # Idempotency is a constraint: two racing POSTs cannot open two requests.
            models.UniqueConstraint(
                fields=["fingerprint"],
                condition=Q(status="pending"),
                name="consent_request_one_open_per_fingerprint",
            ),
        ]
        indexes = [
            # The expiry sweep: pending requests past their expiry.
            models.Index(fields=["status", "expires_at"], name="consent_request_expiry_idx"),
            # A user's pending requests (their pages) and a host's (the staff page).
            models.Index(fields=["user", "status"], name="consent_request_user_idx"),
            models.Index(fields=["host", "status", "-created_at"], name="consent_request_host_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.server_id} asks {self.user_id} for {', '.join(self.scopes)} ({self.status})"


class AccessRequestStatus(models.TextChoices):
    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"


class AccessRequest(TimeStamped):
    """A user asks for a registered server the host policy does not allow
    yet; staff approve (the policy then allows it, and the user gets an
    ordinary consent request) or deny with a note."""

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("acr"), editable=False
    )
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="access_requests")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="access_requests")
    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="access_requests")
    reason = models.TextField()
    status = models.CharField(
        max_length=16, choices=AccessRequestStatus.choices, default=AccessRequestStatus.PENDING
    )
    note = models.TextField(blank=True)
    consent_request = models.ForeignKey(
        ConsentRequest, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    # Who answered, as the ledger names them (a staff member's email, an API key).
    decided_by = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # Asking twice while staff have not answered is one request, held
            # by the database (two quick clicks cannot open two).
            models.UniqueConstraint(
                fields=["user", "server"],
                condition=Q(status="pending"),
                name="access_request_one_pending_per_user_server",
            ),
        ]
        indexes = [
            # The staff queue (by status, newest first) and the user's own list.
            models.Index(fields=["host", "status", "-created_at"], name="access_request_queue_idx"),
            models.Index(fields=["user", "-created_at"], name="access_request_user_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} asks for {self.server_id} ({self.status})"


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
