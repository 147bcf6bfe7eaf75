from typing import ClassVar, Self

from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models import Q

from switchboard.ids import id_factory
from switchboard.models.base import TimeStamped
from switchboard.models.hosts import Host


class Role(models.TextChoices):
    END_USER = "end_user", "End user"
    ADMIN = "admin", "Host admin"
    AUDITOR = "auditor", "Auditor"
    SUPERUSER = "superuser", "Superuser"
    # Staff whose organisation took their role away (SCIM): they keep their
    # history, and may see nothing.
    NONE = "none", "No role"


class User(AbstractUser):
    """Everyone who signs in: a host's end users and its staff.

    End users are addressed by the host's own ``external_id``; staff by
    e-mail. Nobody has a password: people sign in through one-time links.
    """

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("usr"), editable=False
    )
    host = models.ForeignKey(
        Host, null=True, blank=True, on_delete=models.CASCADE, related_name="users"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.END_USER)
    external_id = models.CharField(max_length=200, null=True, blank=True)
    display_name = models.CharField(max_length=200, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)

    objects: ClassVar[UserManager[Self]] = UserManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["host", "external_id"],
                condition=Q(external_id__isnull=False),
                name="user_unique_external_id_per_host",
            ),
            models.CheckConstraint(
                condition=Q(role="superuser") | Q(host__isnull=False),
                name="user_has_host_unless_superuser",
            ),
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        return self.display_name or self.external_id or self.email or self.username

    @property
    def tenant_id(self) -> str:
        """The host this person belongs to. Everyone but Django's superusers
        has one (a database constraint), and only they lack it."""
        if self.host_id is None:
            raise ValueError(f"{self.pk} is a superuser and belongs to no host")
        return self.host_id

    @property
    def is_host_staff(self) -> bool:
        return self.role in (Role.ADMIN, Role.AUDITOR)

    @property
    def is_end_user(self) -> bool:
        return self.role == Role.END_USER


class UserGroup(models.Model):
    """One group an end user belongs to, as the host names it (``groups`` on
    ``PUT /api/v1/users/{id}``). A row per membership, not a list on the
    user: consent an organisation gives to a group is checked on every call
    by joining these rows (``consent.models.GrantQuerySet.live``)."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="org_groups")
    name = models.CharField(max_length=100)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "name"], name="user_group_unique_name"),
        ]
        indexes = [
            # The members of a group (an organisation grant given to it).
            models.Index(fields=["name", "user"], name="user_group_members_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.name}"


class LoginLink(TimeStamped):
    """A one-time sign-in link. Only the token's hash is stored."""

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("lnk"), editable=False
    )
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="login_links")
    token_hash = models.CharField(max_length=64, unique=True)
    next_path = models.CharField(max_length=500, blank=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"login link for {self.user_id}"
