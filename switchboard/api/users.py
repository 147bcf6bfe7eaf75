"""End users of a host (contract: Users)."""

from __future__ import annotations

from ninja import Router, Status

from switchboard.api.schemas import (
    CredentialsIn,
    ErrorOut,
    LoginLinkIn,
    LoginLinkOut,
    UserIn,
    UserOut,
)
from switchboard.selectors import server_get_for_host, user_get_for_host, user_with_groups_for_host
from switchboard.services.users import (
    login_link_create,
    user_credentials_set,
    user_delete,
    user_upsert,
)

router = Router(tags=["users"])
ERRORS = {400: ErrorOut, 401: ErrorOut, 404: ErrorOut, 422: ErrorOut}


@router.put("/users/{external_id}", response={200: UserOut, 201: UserOut, **ERRORS})
def put_user(request, external_id: str, payload: UserIn):
    user, created = user_upsert(
        host=request.host,
        external_id=external_id,
        actor=request.actor,
        display_name=payload.display_name,
        email=payload.email,
        groups=payload.groups,
    )
    return Status(201 if created else 200, user)


@router.get("/users/{external_id}", response={200: UserOut, **ERRORS})
def get_user(request, external_id: str):
    return user_with_groups_for_host(host=request.host, external_id=external_id)


@router.delete("/users/{external_id}", response={204: None, **ERRORS})
def delete_user(request, external_id: str):
    user = user_get_for_host(host=request.host, external_id=external_id)
    user_delete(user=user, actor=request.actor)
    return Status(204, None)


@router.post("/users/{external_id}/login-links", response={201: LoginLinkOut, **ERRORS})
def create_login_link(request, external_id: str, payload: LoginLinkIn | None = None):
    user = user_get_for_host(host=request.host, external_id=external_id)
    url, link = login_link_create(
        user=user, actor=request.actor, next_path=payload.next if payload else None
    )
    return Status(201, {"url": url, "expires_at": link.expires_at})


@router.put("/users/{external_id}/servers/{server_id}/credentials", response={204: None, **ERRORS})
def put_credentials(request, external_id: str, server_id: str, payload: CredentialsIn):
    user = user_get_for_host(host=request.host, external_id=external_id)
    server = server_get_for_host(host=request.host, server_id=server_id)
    user_credentials_set(user=user, server=server, headers=payload.headers, actor=request.actor)
    return Status(204, None)
