"""Grants over the API (contract: Consent). Consent requests and pages come
with the consent issue; these routes work on the shared grant model."""

from __future__ import annotations

from ninja import Router

from consent.models import Scope
from consent.schemas import ConsentCheckIn, ConsentCheckOut, GrantOut, GrantPage
from consent.selectors import grant_get_for_host, grant_is_live, grants_of_user
from consent.services import grant_revoke
from switchboard.api.pagination import paginate
from switchboard.api.schemas import ErrorOut
from switchboard.errors import Invalid, NotFound
from switchboard.selectors import server_get_for_host, user_get_for_host

router = Router(tags=["consent"])
ERRORS = {401: ErrorOut, 404: ErrorOut, 422: ErrorOut}


@router.get("/users/{external_id}/grants", response={200: GrantPage, **ERRORS})
def list_grants(request, external_id: str, cursor: str | None = None, limit: int | None = None):
    user = user_get_for_host(host=request.host, external_id=external_id)
    rows, next_cursor = paginate(grants_of_user(user=user), cursor=cursor, limit=limit)
    return {"items": rows, "next_cursor": next_cursor}


@router.delete("/grants/{grant_id}", response={200: GrantOut, **ERRORS})
def revoke_grant(request, grant_id: str):
    grant = grant_get_for_host(host_id=request.host.id, grant_id=grant_id)
    if grant is None:
        raise NotFound(f"no grant {grant_id!r} for this host", field="grant_id")
    return grant_revoke(grant=grant, actor=request.actor)


@router.post("/consent/check", response={200: ConsentCheckOut, **ERRORS})
def check(request, payload: ConsentCheckIn):
    if payload.scope not in Scope.values:
        raise Invalid(f"scope must be one of {', '.join(Scope.values)}", field="scope")
    user = user_get_for_host(host=request.host, external_id=payload.user)
    server = server_get_for_host(host=request.host, server_id=payload.server)
    grant = grant_is_live(
        user=user,
        server_id=server.id,
        scope=payload.scope,
        hook_id=payload.hook_id,
        event_type=payload.event_type,
    )
    if grant is not None:
        return {"allowed": True, "grant_id": grant.id, "reason": "active_grant"}
    any_grant = grant_is_live(user=user, server_id=server.id, scope=payload.scope)
    reason = "not_approved_for_this_item" if any_grant else "no_consent"
    return {"allowed": False, "reason": reason}
