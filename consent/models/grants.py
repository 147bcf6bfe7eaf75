"""A user's grants: what one user allowed one server to do, and the one
definition of a live grant (``Grant.objects.live``)."""

from datetime import datetime

from django.db import models
from django.db.models import Q
from django.utils import timezone

from consent.models.org_grants import org_grant_applies
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
