"""Access requests over the API (contract: Consent an organisation gives,
access requests): a host files one for its user; staff's tools list them
and answer."""

from __future__ import annotations

from ninja import Router, Status

from consent.access_selectors import access_request_get_for_host, access_requests_for_host
from consent.schemas import AccessDenyIn, AccessRequestIn, AccessRequestOut, AccessRequestPage
from consent.services.access_requests import (
    access_request_approve,
    access_request_create,
    access_request_deny,
)
from switchboard.api.pagination import paginate
from switchboard.api.params import PageLimit
from switchboard.api.schemas import ErrorOut
from switchboard.selectors import server_get_for_host, user_get_for_host

router = Router(tags=["consent"])
ERRORS = {400: ErrorOut, 401: ErrorOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut}


@router.post("/access-requests", response={201: AccessRequestOut, **ERRORS})
def create_access_request(request, payload: AccessRequestIn):
    """The user asks for a registered server the policy does not allow yet.
    409 ``already_allowed`` when it does; 409 ``already_requested`` while the
    user's earlier request waits."""
    user = user_get_for_host(host=request.host, external_id=payload.user)
    server = server_get_for_host(host=request.host, server_id=payload.server)
    created = access_request_create(
        user=user, server=server, reason=payload.reason, actor=request.actor
    )
    return Status(201, created)


@router.get("/access-requests", response={200: AccessRequestPage, **ERRORS})
def list_access_requests(
    request,
    status: str | None = None,
    cursor: str | None = None,
    limit: PageLimit | None = None,
):
    """Newest first; ``status``: pending, approved or denied."""
    rows = access_requests_for_host(host=request.host, status=status)
    items, next_cursor = paginate(rows, cursor=cursor, limit=limit)
    return {"items": items, "next_cursor": next_cursor}


@router.get("/access-requests/{request_id}", response={200: AccessRequestOut, **ERRORS})
def get_access_request(request, request_id: str):
    return access_request_get_for_host(host=request.host, request_id=request_id)


@router.post("/access-requests/{request_id}/approve", response={200: AccessRequestOut, **ERRORS})
def approve_access_request(request, request_id: str):
    """The server joins the allow list (or leaves the deny list) and the user
    gets an ordinary consent request for what it offers."""
    found = access_request_get_for_host(host=request.host, request_id=request_id)
    return access_request_approve(request=found, actor=request.actor)


@router.post("/access-requests/{request_id}/deny", response={200: AccessRequestOut, **ERRORS})
def deny_access_request(request, request_id: str, payload: AccessDenyIn):
    found = access_request_get_for_host(host=request.host, request_id=request_id)
    return access_request_deny(request=found, note=payload.note, actor=request.actor)
