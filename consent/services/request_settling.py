"""Settling a consent request: once nothing in it is undecided it closes, as
approved, partially approved or denied (``request_rules``), with one ledger
entry and one notice.

Called explicitly, never through a signal: by ``consent_request_decide``
once every answer is in, by ``consent_request_create`` when everything asked
is allowed already, and by the grant services after a grant changed on its
own (``consent_requests_settle``), for every open request it belongs to.
"""

from __future__ import annotations

from django.utils import timezone

from consent.models import ConsentRequest, Grant, RequestStatus
from consent.services.notify import request_change_notify
from consent.services.request_rules import Outcome, grant_outcome, request_status
from switchboard.actors import Actor
from switchboard.models import User
from switchboard.services.audit import audit_record


def consent_request_settle(
    *,
    request: ConsentRequest,
    actor: Actor,
    answered: dict[str, Outcome] | None = None,
    decided_by: User | None = None,
    channel: str | None = None,
) -> str | None:
    """Close ``request`` (locked, pending) if nothing in it is undecided;
    return its new status, or None while it waits.

    ``answered``: the outcome of each grant the user's answer decided (the
    others are read from their state).
    """
    grants = list(request.grants.all())
    answered = answered or {}
    status = request_status([answered.get(g.id) or grant_outcome(request, g) for g in grants])
    if status is None:
        return None
    request.status = status
    request.decided_at = timezone.now()
    request.decided_by = decided_by
    request.channel = channel or request.channel
    request.save(update_fields=["status", "decided_at", "decided_by", "channel", "updated_at"])
    audit_record(
        host_id=request.host_id,
        kind="consent.request_decided",
        actor=actor,
        user=request.user,
        server_id=request.server_id,
        subject_type="consent_request",
        subject_id=request.id,
        summary=f"Consent request of {request.server.name}: {status.replace('_', ' ')}",
        detail={"status": status, "grants": {g.id: g.status for g in grants}},
    )
    request_change_notify(request=request)
    return status


def consent_requests_settle(*, grant: Grant, answering: ConsentRequest | None = None) -> None:
    """After ``grant`` changed: settle the open requests it was the last
    undecided part of. ``answering``, the request whose answer made the
    change, is left alone: it settles itself once every answer is in."""
    requests = grant.requests.select_for_update(no_key=True).filter(status=RequestStatus.PENDING)
    if answering is not None:
        requests = requests.exclude(pk=answering.pk)
    for request in requests:
        consent_request_settle(
            request=request,
            actor=Actor.system(),
            decided_by=grant.decided_by,
            channel=grant.channel,
        )
