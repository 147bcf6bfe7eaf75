"""Access requests: a user asks for a registered server the host policy does
not allow yet (``access_request_create``); staff approve it (the policy then
allows the server, and the user gets an ordinary consent request for what the
server offers) or deny it with a note.

Each change is a ledger entry (``access_request.<status>``), an
``access_request.updated`` delivery to the host, and a live update of the
user's page and the staff queue (``live.access_requests_changed``).
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from consent import live
from consent.models import (
    AccessRequest,
    AccessRequestStatus,
    HostPolicy,
    RequestOrigin,
    Scope,
    ServerListMode,
)
from consent.selectors import host_policy_get
from consent.services.policy import host_policy_update
from consent.services.request_opening import consent_request_create
from consent.snapshots import current_event_types, current_hooks
from outbox.emit import host_event_emit
from switchboard.actors import Actor
from switchboard.errors import Conflict, Invalid
from switchboard.models import McpServer, User
from switchboard.services.audit import audit_record
from switchboard.services.server_block import STAFF

REASON_MAX = 1000
NOTE_MAX = 1000


def _text_check(value: str | None, *, field: str, limit: int, what: str) -> str:
    """Stripped text of 1..limit characters, else ``Invalid`` naming the field."""
    text = (value or "").strip()
    if not text:
        raise Invalid(f"{field}: say {what}", field=field)
    if len(text) > limit:
        raise Invalid(f"{field}: at most {limit:,} characters ({len(text):,} given)", field=field)
    return text


def access_request_reason_check(reason: str | None) -> str:
    return _text_check(reason, field="reason", limit=REASON_MAX, what="why you need this server")


def access_request_note_check(note: str | None) -> str:
    return _text_check(
        note, field="note", limit=NOTE_MAX, what="why the request is denied (the user reads it)"
    )


def scopes_offered(server: McpServer) -> list[str]:
    """What an approved request asks the user for: every scope the server
    offers now (reading messages, hooks, events)."""
    scopes = []
    if server.conversation_events:
        scopes.append(Scope.CONVERSATION_READ.value)
    if current_hooks(server):
        scopes.append(Scope.HOOKS.value)
    if (server.capabilities or {}).get("mcpe") or current_event_types(server):
        scopes.append(Scope.EVENTS.value)
    return scopes


def _data(request: AccessRequest) -> dict:
    """The ``access_request.updated`` delivery's data (the contract's fields)."""
    data: dict = {
        "request_id": request.id,
        "user": request.user.external_id,
        "server": request.server_id,
        "status": request.status,
    }
    if request.note:
        data["note"] = request.note
    if request.consent_request_id:
        data["consent_request_id"] = request.consent_request_id
    return data


def _changed(request: AccessRequest) -> None:
    """The host hears of it (an outbox row in this transaction); open pages
    after commit."""
    host_event_emit(host_id=request.host_id, type="access_request.updated", data=_data(request))
    live.access_requests_changed(request)


@transaction.atomic
def access_request_create(
    *, user: User, server: McpServer, reason: str | None, actor: Actor
) -> AccessRequest:
    """Open a request. 409 ``already_allowed`` when the policy allows the
    server already, 409 ``already_requested`` while the user's earlier one
    waits."""
    reason = access_request_reason_check(reason)
    if host_policy_get(host_id=server.host_id).allows_server(server.id):
        raise Conflict(
            f"the organisation policy already allows {server.name}; no request is needed",
            field="server",
            code="already_allowed",
        )
    try:
        with transaction.atomic():
            request = AccessRequest.objects.create(
                host_id=server.host_id, user=user, server=server, reason=reason
            )
    except IntegrityError:
        raise Conflict(
            f"an access request for {server.name} is already waiting for staff",
            field="server",
            code="already_requested",
        ) from None
    audit_record(
        host_id=request.host_id,
        kind="access_request.created",
        actor=actor,
        user=user,
        server_id=server.id,
        subject_type="access_request",
        subject_id=request.id,
        summary=f"Access to {server.name} requested",
        detail={"reason": reason},
    )
    _changed(request)
    return request


def _pending(request: AccessRequest) -> AccessRequest:
    """The row, locked; 409 ``already_decided`` once someone has answered."""
    locked = (
        AccessRequest.objects.select_for_update(no_key=True)
        .select_related("user", "server")
        .get(pk=request.pk)
    )
    if locked.status != AccessRequestStatus.PENDING:
        raise Conflict(
            f"this request was already answered ({locked.status})",
            field="status",
            code="already_decided",
        )
    return locked


def _policy_allowing(policy: HostPolicy, server_id: str) -> dict | None:
    """The policy change that lets the server in: off the deny list, onto the
    allow list (None: the policy allows it already)."""
    if policy.allows_server(server_id):
        return None
    if policy.server_list_mode == ServerListMode.ALLOW:
        return {"listed_server_ids": [*policy.listed_server_ids, server_id]}
    return {"listed_server_ids": [s for s in policy.listed_server_ids if s != server_id]}


@transaction.atomic
def access_request_approve(*, request: AccessRequest, actor: Actor) -> AccessRequest:
    """The server leaves the deny list or joins the allow list, and the user
    gets an ordinary consent request for what the server offers."""
    request = _pending(request)
    server = request.server
    if server.deleted_at is not None:
        raise Conflict(
            f"{server.name} was removed; it cannot be allowed",
            field="server",
            code="server_removed",
        )
    if server.blocked_at is not None and server.blocked_reason == STAFF:
        raise Conflict(
            f"{server.name} is stopped by the kill switch; unblock it first",
            field="server",
            code="server_blocked",
        )
    policy = host_policy_get(host_id=request.host_id)
    change = _policy_allowing(policy, server.id)
    if change is not None:
        host_policy_update(host=request.host, actor=actor, **change)
        server.refresh_from_db()
    scopes = scopes_offered(server)
    consent_request = None
    if scopes:
        consent_request, _ = consent_request_create(
            host=request.host,
            user=request.user,
            server=server,
            scopes=scopes,
            actor=actor,
            origin=RequestOrigin.ACCESS_REQUEST,
        )
    request.status = AccessRequestStatus.APPROVED
    request.consent_request = consent_request
    request.decided_at = timezone.now()
    request.decided_by = actor.label[:200]
    request.save()
    audit_record(
        host_id=request.host_id,
        kind="access_request.approved",
        actor=actor,
        user=request.user,
        server_id=server.id,
        subject_type="access_request",
        subject_id=request.id,
        summary=f"Access to {server.name} approved",
        detail={
            "policy_changed": change is not None,
            "consent_request_id": consent_request.id if consent_request else None,
            "scopes": scopes,
        },
    )
    _changed(request)
    return request


@transaction.atomic
def access_request_deny(*, request: AccessRequest, note: str | None, actor: Actor) -> AccessRequest:
    note = access_request_note_check(note)
    request = _pending(request)
    request.status = AccessRequestStatus.DENIED
    request.note = note
    request.decided_at = timezone.now()
    request.decided_by = actor.label[:200]
    request.save()
    audit_record(
        host_id=request.host_id,
        kind="access_request.denied",
        actor=actor,
        user=request.user,
        server_id=request.server_id,
        subject_type="access_request",
        subject_id=request.id,
        summary=f"Access to {request.server.name} denied",
        detail={"note": note},
    )
    _changed(request)
    return request
