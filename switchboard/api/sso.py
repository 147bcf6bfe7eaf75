"""The host's OIDC connection and SCIM token over the API (docs/host-integration.md §11)."""

from __future__ import annotations

from ninja import Field, Router, Schema, Status

from switchboard.api.schemas import ErrorOut
from switchboard.errors import NotFound
from switchboard.models import SsoConnection
from switchboard.sso.connections import (
    ConnectionIn,
    redirect_uri,
    scim_token_create,
    sso_connection_delete,
    sso_connection_save,
)

router = Router(tags=["sso"])
ERRORS = {400: ErrorOut, 401: ErrorOut, 404: ErrorOut, 422: ErrorOut}


class SsoIn(Schema):
    issuer: str = Field(..., max_length=500)
    client_id: str = Field(..., max_length=500)
    client_secret: str = Field(..., max_length=2000)
    email_domains: list[str] = Field(..., max_length=50)
    role_claim: str = Field("groups", max_length=200)
    admin_values: list[str] = Field(default_factory=list, max_length=50)
    auditor_values: list[str] = Field(default_factory=list, max_length=50)
    enabled: bool = True


class ScimOut(Schema):
    enabled: bool
    token_hint: str | None


class SsoOut(Schema):
    issuer: str
    client_id: str
    email_domains: list[str]
    role_claim: str
    admin_values: list[str]
    auditor_values: list[str]
    enabled: bool
    redirect_uri: str
    scim: ScimOut


class ScimTokenOut(Schema):
    token: str


def sso_as_dict(connection: SsoConnection) -> dict:
    return {
        "issuer": connection.issuer,
        "client_id": connection.client_id,
        "email_domains": connection.email_domains,
        "role_claim": connection.role_claim,
        "admin_values": connection.admin_values,
        "auditor_values": connection.auditor_values,
        "enabled": connection.enabled,
        "redirect_uri": redirect_uri(),
        "scim": {
            "enabled": bool(connection.scim_token_hash),
            "token_hint": connection.scim_token_hint or None,
        },
    }


def _connection(request) -> SsoConnection:
    connection = SsoConnection.objects.filter(host=request.host).first()
    if connection is None:
        raise NotFound("this host has no SSO connection")
    return connection


@router.put("/sso", response={200: SsoOut, **ERRORS})
def put_sso(request, payload: SsoIn):
    connection = sso_connection_save(
        host=request.host, data=ConnectionIn(**payload.dict()), actor=request.actor
    )
    return sso_as_dict(connection)


@router.get("/sso", response={200: SsoOut, **ERRORS})
def get_sso(request):
    return sso_as_dict(_connection(request))


@router.delete("/sso", response={204: None, **ERRORS})
def delete_sso(request):
    _connection(request)
    sso_connection_delete(host=request.host, actor=request.actor)
    return Status(204, None)


@router.post("/sso/scim-token", response={201: ScimTokenOut, **ERRORS})
def post_scim_token(request):
    token = scim_token_create(connection=_connection(request), actor=request.actor)
    return Status(201, {"token": token})
