from django.db import models

from switchboard.crypto import EncryptedJSONField
from switchboard.ids import id_factory
from switchboard.models.base import TimeStamped
from switchboard.models.hosts import Host
from switchboard.models.users import User


class SsoConnection(TimeStamped):
    """A host's OIDC connection: its staff sign in at this identity provider
    (docs/host-integration.md §11). The discovery document is kept as read when the
    connection was saved, so a sign-in does not depend on reading it again."""

    host = models.OneToOneField(
        Host, primary_key=True, on_delete=models.CASCADE, related_name="sso"
    )
    issuer = models.URLField(max_length=500)
    client_id = models.CharField(max_length=500)
    # {"secret": "..."}: encrypted at rest, never answered.
    client_secret = EncryptedJSONField()
    email_domains = models.JSONField(default=list)
    role_claim = models.CharField(max_length=200, default="groups")
    admin_values = models.JSONField(default=list)
    auditor_values = models.JSONField(default=list)
    enabled = models.BooleanField(default=True)
    discovery = models.JSONField(default=dict)
    # SCIM: only the token's hash; the hint is its first characters.
    scim_token_hash = models.CharField(max_length=64, blank=True, db_index=True)
    scim_token_hint = models.CharField(max_length=16, blank=True)

    def __str__(self) -> str:
        return f"SSO of {self.host_id} at {self.issuer}"


class StaffIdentity(TimeStamped):
    """Who a staff member is at the IdP: matched on (issuer, sub), never on
    the email alone (an email can be reassigned; ``sub`` is not)."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="identities")
    issuer = models.CharField(max_length=500)
    subject = models.CharField(max_length=255)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="identity_unique_issuer_sub")
        ]

    def __str__(self) -> str:
        return f"{self.issuer} {self.subject}"


class SignInMethod(models.TextChoices):
    SSO = "sso", "Organisation sign-in (SSO)"
    LINK = "link", "One-time link (break-glass)"


class StaffSession(TimeStamped):
    """One signed-in browser session of a staff member: where, when and how,
    so they (and their admins) can see and end it."""

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("ses"), editable=False
    )
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="staff_sessions")
    session_key = models.CharField(max_length=40, unique=True)
    method = models.CharField(max_length=8, choices=SignInMethod.choices)
    ip = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=300, blank=True)
    expires_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # "Your sessions" and an admin's view of one person: the open ones.
            models.Index(fields=["user", "ended_at"], name="staff_session_user_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.method} session of {self.user_id}"


class ScimResource(TimeStamped):
    """One SCIM resource (a User or a Group) a host's IdP provisioned, as the
    protocol knows it (``data``: the resource's JSON, served back as it was
    written). A User is tied to the staff account it provisions."""

    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="scim_resources")
    resource_type = models.CharField(max_length=20)  # "User" | "Group"
    resource_id = models.CharField(max_length=64)
    data = models.JSONField()
    # Copied out of ``data`` for the sign-in's lookups.
    external_id = models.CharField(max_length=255, blank=True)
    user_name = models.CharField(max_length=255, blank=True)
    user = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="scim_resources"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["host", "resource_type", "resource_id"], name="scim_unique_resource"
            )
        ]

    def __str__(self) -> str:
        return f"SCIM {self.resource_type} {self.resource_id} of {self.host_id}"
