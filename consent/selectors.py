"""Reads of consent state, always scoped to one user."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils import timezone

from consent.models import Grant, GrantStatus
from switchboard.models import User


def grant_is_live(
    *,
    user: User | str,
    server_id: str,
    scope: str,
    hook_id: str | None = None,
    event_type: str | None = None,
    at: datetime | None = None,
) -> Grant | None:
    """The active, unexpired grant that allows this, or None.

    Checked against the database on every call (no cache), so a revoke takes
    effect for the very next message, whichever process handles it.
    """
    now = at or timezone.now()
    user_id = user if isinstance(user, str) else user.id
    grant = (
        Grant.objects.filter(
            user_id=user_id, server_id=server_id, scope=scope, status=GrantStatus.ACTIVE
        )
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
        .first()
    )
    if grant is None:
        return None
    if hook_id is not None and hook_id not in grant.approved_hook_ids:
        return None
    if event_type is not None and event_type not in grant.approved_event_types:
        return None
    return grant


def grants_of_user(*, user: User) -> QuerySet[Grant]:
    return Grant.objects.filter(user=user).select_related("server").order_by("-created_at", "-id")


def grant_get_for_host(*, host_id: str, grant_id: str) -> Grant | None:
    return (
        Grant.objects.filter(host_id=host_id, pk=grant_id).select_related("server", "user").first()
    )
