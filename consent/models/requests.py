"""What is asked: consent requests put to a user, and access requests a
user puts to staff."""

from django.db import models
from django.db.models import Q

from consent.models.grants import Channel, Grant
from switchboard.ids import id_factory
from switchboard.models import Host, McpServer, User
from switchboard.models.base import TimeStamped


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
