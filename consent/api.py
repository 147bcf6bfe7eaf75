"""Consent and conversation context over the API (contract: Consent,
Conversation context)."""

from __future__ import annotations

import time

from ninja import Router, Status

from consent.as_of import LedgerPosition, grants_as_of, ledger_position
from consent.models import Scope
from consent.org_selectors import org_grant_get_for_host, org_grants_for_host
from consent.schemas import (
    ConsentCheckIn,
    ConsentCheckOut,
    ConsentRequestCreated,
    ConsentRequestIn,
    ConsentRequestOut,
    GrantOut,
    GrantPage,
    InjectionIn,
    InjectionOut,
    MessageIn,
    MessageOut,
    OrgGrantIn,
    OrgGrantOut,
    OrgGrantPage,
    PolicyIn,
    PolicyOut,
)
from consent.selectors import (
    consent_request_get_for_host,
    consent_request_status,
    grant_get_for_host,
    grant_is_live,
    grants_of_user,
    host_policy_get,
)
from consent.services import (
    consent_request_create,
    consent_url,
    grant_turn_off,
    host_policy_update,
    injection_report,
    org_grant_approve,
    org_grant_create,
    org_grant_end,
)
from consent.services.conversation import conversation_message
from consent.services.policy import POLICY_FIELDS
from switchboard.api.pagination import paginate
from switchboard.api.params import PageLimit, Timestamp
from switchboard.api.schemas import ErrorOut
from switchboard.errors import Invalid, NotFound
from switchboard.selectors import server_get_for_host, user_get_for_host
from switchboard.services.ledger_checkpoints import checkpoint_as_dict

router = Router(tags=["consent"])
ERRORS = {400: ErrorOut, 401: ErrorOut, 404: ErrorOut, 422: ErrorOut}


@router.get("/users/{external_id}/grants", response={200: GrantPage, **ERRORS})
def list_grants(
    request,
    external_id: str,
    cursor: str | None = None,
    limit: PageLimit | None = None,
    at: Timestamp | None = None,
):
    """Every grant of the user, newest first. With ``at`` (RFC 3339): the
    grants as they stood at that moment, each with its status then, rebuilt
    from the ledger (one page), and ``ledger``: the newest entry replayed and
    the signed checkpoint that covers it."""
    user = user_get_for_host(host=request.host, external_id=external_id)
    if at is not None:
        grants = grants_as_of(user=user, at=at)
        position = ledger_position(user=user, grants=grants)
        return {"items": grants, "next_cursor": None, "ledger": _ledger_out(position)}
    rows, next_cursor = paginate(grants_of_user(user=user), cursor=cursor, limit=limit)
    return {"items": rows, "next_cursor": next_cursor}


def _ledger_out(position: LedgerPosition) -> dict:
    return {
        "entry": None if position.entry_id is None else str(position.entry_id),
        "leaf_index": position.leaf_index,
        "checkpoint": checkpoint_as_dict(position.checkpoint) if position.checkpoint else None,
        "reason": position.reason,
    }


@router.delete("/grants/{grant_id}", response={200: GrantOut, 403: ErrorOut, **ERRORS})
def revoke_grant(request, grant_id: str):
    """Turn a grant off for its user. One an organisation grant gave: only
    where it lets users do so (403 ``revoke_not_allowed`` otherwise)."""
    grant = grant_get_for_host(host_id=request.host.id, grant_id=grant_id)
    if grant is None:
        raise NotFound(f"no grant {grant_id!r} for this host", field="grant_id")
    return grant_turn_off(grant=grant, actor=request.actor)


@router.post("/consent/check", response={200: ConsentCheckOut, **ERRORS}, exclude_unset=True)
def check(request, payload: ConsentCheckIn):
    """Is this allowed right now? ``source`` (who allowed it) only when it is."""
    if payload.scope not in Scope.values:
        raise Invalid(f"scope must be one of {', '.join(Scope.values)}", field="scope")
    user = user_get_for_host(host=request.host, external_id=payload.user)
    server = server_get_for_host(host=request.host, server_id=payload.server)
    if not host_policy_get(host_id=request.host.id).allows_server(server.id):
        return {"allowed": False, "grant_id": None, "reason": "denied_by_policy"}
    grant = grant_is_live(
        user=user,
        server_id=server.id,
        scope=payload.scope,
        hook_id=payload.hook_id,
        event_type=payload.event_type,
    )
    if grant is not None:
        return {
            "allowed": True,
            "grant_id": grant.id,
            "reason": "active_grant",
            "source": grant.source,
        }
    any_grant = grant_is_live(user=user, server_id=server.id, scope=payload.scope)
    reason = "not_approved_for_this_item" if any_grant else "no_consent"
    return {"allowed": False, "grant_id": None, "reason": reason}


@router.post("/org-grants", response={201: OrgGrantOut, 403: ErrorOut, 409: ErrorOut, **ERRORS})
def create_org_grant(request, payload: OrgGrantIn):
    """Allow a server for groups of users (``["*"]``: everyone), no prompt;
    409 ``server_blocked`` for a blocked server, 403 ``server_not_allowed``
    for one the policy does not allow."""
    server = server_get_for_host(host=request.host, server_id=payload.server)
    org = org_grant_create(
        host=request.host,
        server=server,
        scopes=payload.scopes,
        event_types=payload.event_types,
        hook_ids=payload.hook_ids,
        groups=payload.groups,
        user_can_revoke=payload.user_can_revoke,
        expires_at=payload.expires_at,
        actor=request.actor,
    )
    return Status(201, org_grant_get_for_host(host=request.host, org_grant_id=org.id))


@router.get("/org-grants", response={200: OrgGrantPage, **ERRORS})
def list_org_grants(request, cursor: str | None = None, limit: PageLimit | None = None):
    rows, next_cursor = paginate(org_grants_for_host(host=request.host), cursor=cursor, limit=limit)
    return {"items": rows, "next_cursor": next_cursor}


@router.get("/org-grants/{org_grant_id}", response={200: OrgGrantOut, **ERRORS})
def get_org_grant(request, org_grant_id: str):
    return org_grant_get_for_host(host=request.host, org_grant_id=org_grant_id)


@router.delete("/org-grants/{org_grant_id}", response={204: None, **ERRORS})
def end_org_grant(request, org_grant_id: str):
    """End it: it stops applying at the very next call, for every member."""
    org = org_grant_get_for_host(host=request.host, org_grant_id=org_grant_id)
    org_grant_end(org_grant=org, actor=request.actor)
    return Status(204, None)


@router.post(
    "/org-grants/{org_grant_id}/approve", response={200: OrgGrantOut, 409: ErrorOut, **ERRORS}
)
def approve_org_grant(request, org_grant_id: str):
    """A grant suspended by a change of its server applies again."""
    org = org_grant_get_for_host(host=request.host, org_grant_id=org_grant_id)
    org_grant_approve(org_grant=org, actor=request.actor)
    return org_grant_get_for_host(host=request.host, org_grant_id=org.id)


def _request_out(consent_request) -> dict:
    return {
        "id": consent_request.id,
        "status": consent_request_status(consent_request),
        "user": consent_request.user.external_id,
        "server": consent_request.server_id,
        "scopes": consent_request.scopes,
        "event_types": consent_request.event_types,
        "consent_url": consent_url(consent_request),
        "return_url": consent_request.return_url,
        "origin": consent_request.origin,
        "expires_at": consent_request.expires_at,
        "decided_at": consent_request.decided_at,
        "grants": list(consent_request.grants.select_related("server").order_by("scope")),
    }


@router.post(
    "/consent/requests",
    response={
        200: ConsentRequestCreated,
        201: ConsentRequestCreated,
        403: ErrorOut,
        409: ErrorOut,
        **ERRORS,
    },
)
def create_request(request, payload: ConsentRequestIn):
    """Ask a user for consent. The same open request again answers 200 with it."""
    user = user_get_for_host(host=request.host, external_id=payload.user)
    server = server_get_for_host(host=request.host, server_id=payload.server)
    created_request, created = consent_request_create(
        host=request.host,
        user=user,
        server=server,
        scopes=payload.scopes,
        event_types=payload.event_types,
        return_url=payload.return_url,
        handlers=payload.handlers,
        actor=request.actor,
    )
    body = {
        "id": created_request.id,
        "status": consent_request_status(created_request),
        "consent_url": consent_url(created_request),
        "expires_at": created_request.expires_at,
    }
    return Status(201 if created else 200, body)


@router.get("/consent/requests/{request_id}", response={200: ConsentRequestOut, **ERRORS})
def get_request(request, request_id: str):
    return _request_out(consent_request_get_for_host(host=request.host, request_id=request_id))


@router.post(
    "/conversations/{conversation_id}/messages",
    response={200: MessageOut, 413: ErrorOut, **ERRORS},
)
async def post_message(request, conversation_id: str, payload: MessageIn):
    """Send a user message to every server allowed to read it; answers within
    the host's budget (default 500 ms) plus a few milliseconds."""
    # The budget is the host's wait: from the request's arrival (the API key's
    # lookup before this view included), when the outermost middleware noted it.
    started = getattr(request, "received_at", None) or time.monotonic()
    result = await conversation_message(
        host=request.host,
        conversation_id=conversation_id,
        user_external_id=payload.user,
        message_id=payload.message_id,
        content=payload.content,
        recent_history=[h.dict() for h in payload.recent_history]
        if payload.recent_history is not None
        else None,
        server_ids=payload.servers,
        started=started,
    )
    return result.__dict__


@router.post(
    "/conversations/{conversation_id}/injections",
    response={201: InjectionOut, 403: ErrorOut, 413: ErrorOut, **ERRORS},
)
def report_injection(request, conversation_id: str, payload: InjectionIn):
    """For hosts that called a server themselves: recorded like ours; 403 when
    no live ``conversation:read`` grant allowed it."""
    user = user_get_for_host(host=request.host, external_id=payload.user)
    server = server_get_for_host(host=request.host, server_id=payload.server)
    injection = injection_report(
        host=request.host,
        user=user,
        server=server,
        conversation_id=conversation_id,
        message_id=payload.message_id,
        context=payload.context,
        latency_ms=payload.latency_ms,
        actor=request.actor,
    )
    return Status(201, injection)


def _policy_as_dict(policy) -> dict:
    return {
        **{name: getattr(policy, name) for name in POLICY_FIELDS},
        "updated_at": getattr(policy, "updated_at", None),
    }


@router.get("/policy", response={200: PolicyOut, **ERRORS})
def get_policy(request):
    """The organisation policy every path applies: which servers may be
    used at all, the `required` hook rule, injection caps and the budget."""
    return _policy_as_dict(host_policy_get(host_id=request.host.id))


@router.put("/policy", response={200: PolicyOut, **ERRORS})
def put_policy(request, payload: PolicyIn):
    """Change the policy (fields left out keep their value). A server the
    new list denies is blocked for everyone at once, as by the kill switch;
    one it allows again is unblocked and gets nothing until users consent."""
    changes = payload.dict(exclude_unset=True)
    changes = {name: value for name, value in changes.items() if value is not None}
    policy = host_policy_update(host=request.host, actor=request.actor, **changes)
    return _policy_as_dict(policy)
