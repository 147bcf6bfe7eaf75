"""Consent requests nobody answered: closed as expired past their expiry (by
beat, or when the same request is asked again), with the pending grants no
other open request asks about."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from consent.models import ConsentRequest, GrantStatus, RequestStatus
from consent.services.grants import grant_expire
from consent.services.notify import request_change_notify
from switchboard.actors import Actor
from switchboard.services.audit import audit_record


def consent_request_expire(*, request: ConsentRequest) -> None:
    """Close an open request past its expiry; its still-pending grants that no
    other open request asks about expire with it."""
    request.status = RequestStatus.EXPIRED
    request.decided_at = timezone.now()
    request.save(update_fields=["status", "decided_at", "updated_at"])
    audit_record(
        host_id=request.host_id,
        kind="consent.request_expired",
        actor=Actor.system(),
        user=request.user,
        server_id=request.server_id,
        subject_type="consent_request",
        subject_id=request.id,
        summary=f"Consent request of {request.server.name} expired unanswered",
    )
    for grant in request.grants.filter(status=GrantStatus.PENDING):
        if not grant.requests.filter(status=RequestStatus.PENDING).exists():
            grant_expire(grant=grant, reason="request_expired")

    request_change_notify(request=request)


def consent_requests_expire_due() -> int:
    """Beat: expire open requests past their expiry, one transaction each."""
    due = ConsentRequest.objects.filter(
        status=RequestStatus.PENDING, expires_at__lte=timezone.now()
    ).values_list("pk", flat=True)
    count = 0
    for pk in list(due[:500]):
        with transaction.atomic():
            request = (
                ConsentRequest.objects.select_for_update(no_key=True, skip_locked=True)
                .select_related("server", "user")
                .filter(pk=pk, status=RequestStatus.PENDING)
                .first()
            )
            if request is not None:
                consent_request_expire(request=request)
                count += 1
    return count
