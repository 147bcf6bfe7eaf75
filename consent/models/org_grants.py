"""Organisation grants: an admin allows a server for groups (or everyone);
each member holds a ``Grant`` of their own for it."""

from datetime import datetime

from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from switchboard.ids import id_factory
from switchboard.models import Host, McpServer, User, UserGroup
from switchboard.models.base import TimeStamped


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
