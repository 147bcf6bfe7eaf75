"""A host's OIDC connection: saved only after its discovery document was
read and holds what the flow needs; its SCIM token."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction

from switchboard.actors import Actor
from switchboard.errors import Invalid
from switchboard.models import Host, SignInMethod, SsoConnection
from switchboard.outbound_urls import outbound_url_checked
from switchboard.services.audit import audit_record
from switchboard.sso.idp_http import IdpUnreachable, idp_get_json
from switchboard.sso.sessions import staff_sessions_end

SCIM_TOKEN_PREFIX = "scim_"


def redirect_uri() -> str:
    return f"{settings.PUBLIC_BASE_URL}/sso/oidc/callback"


@dataclass
class ConnectionIn:
    issuer: str
    client_id: str
    client_secret: str
    email_domains: list[str]
    role_claim: str
    admin_values: list[str]
    auditor_values: list[str]
    enabled: bool


def _validated(data: ConnectionIn) -> ConnectionIn:
    data.issuer = outbound_url_checked(data.issuer, field="issuer")
    if not data.client_id.strip():
        raise Invalid("client_id is required", field="client_id")
    if not data.client_secret:
        raise Invalid("client_secret is required", field="client_secret")
    domains = [d.strip().lower().lstrip("@") for d in data.email_domains if d.strip()]
    if not domains or any("." not in d or "@" in d or " " in d for d in domains):
        raise Invalid("email_domains must list domains like example.com", field="email_domains")
    if not data.role_claim.strip():
        raise Invalid("role_claim is required", field="role_claim")
    if not data.admin_values and not data.auditor_values:
        raise Invalid(
            "admin_values or auditor_values must name at least one value", field="admin_values"
        )
    data.email_domains = domains
    data.issuer = data.issuer.rstrip("/")
    return data


def discovery_read(issuer: str) -> dict[str, Any]:
    """The issuer's discovery document, checked for what the flow needs;
    ``Invalid`` naming ``issuer`` otherwise."""
    url = f"{issuer}/.well-known/openid-configuration"
    try:
        document = idp_get_json(url)
    except IdpUnreachable as exc:
        raise Invalid(
            f"issuer: its discovery document could not be read ({exc})", field="issuer"
        ) from None
    if str(document.get("issuer", "")).rstrip("/") != issuer:
        raise Invalid(
            f"issuer: the discovery document names issuer {document.get('issuer')!r}",
            field="issuer",
        )
    for name in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
        if not isinstance(document.get(name), str):
            raise Invalid(f"issuer: the discovery document lacks {name}", field="issuer")
    response_types = document.get("response_types_supported", ["code"])
    if not isinstance(response_types, list) or "code" not in response_types:
        raise Invalid("issuer: the IdP does not support the code flow", field="issuer")
    methods = document.get("code_challenge_methods_supported")
    if methods is not None and (not isinstance(methods, list) or "S256" not in methods):
        raise Invalid("issuer: the IdP does not support PKCE with S256", field="issuer")
    return document


@transaction.atomic
def sso_connection_save(*, host: Host, data: ConnectionIn, actor: Actor) -> SsoConnection:
    """Create or replace the host's connection (a failed validation leaves
    the previous one as it was; the SCIM token stays)."""
    data = _validated(data)
    document = discovery_read(data.issuer)
    connection = SsoConnection.objects.filter(host=host).first() or SsoConnection(host=host)
    connection.issuer = data.issuer
    connection.client_id = data.client_id.strip()
    connection.client_secret = {"secret": data.client_secret}
    connection.email_domains = data.email_domains
    connection.role_claim = data.role_claim.strip()
    connection.admin_values = list(data.admin_values)
    connection.auditor_values = list(data.auditor_values)
    connection.enabled = data.enabled
    connection.discovery = document
    connection.save()
    audit_record(
        host_id=host.id,
        kind="sso.saved",
        actor=actor,
        summary=f"Organisation sign-in {'enabled' if data.enabled else 'disabled'} at {data.issuer}",
        subject_type="sso",
        subject_id=host.id,
        detail={
            "issuer": data.issuer,
            "client_id": connection.client_id,
            "email_domains": data.email_domains,
            "role_claim": connection.role_claim,
            "admin_values": connection.admin_values,
            "auditor_values": connection.auditor_values,
            "enabled": data.enabled,
        },
    )
    return connection


@transaction.atomic
def sso_connection_delete(*, host: Host, actor: Actor) -> int:
    """Remove the connection and sign out everyone of the host who signed
    in through it; returns how many sessions ended."""
    SsoConnection.objects.filter(host=host).delete()
    ended = staff_sessions_end(
        host=host, method=SignInMethod.SSO, actor=actor, reason="sso_removed"
    )
    audit_record(
        host_id=host.id,
        kind="sso.removed",
        actor=actor,
        summary=f"Organisation sign-in removed; {ended} sessions ended",
        subject_type="sso",
        subject_id=host.id,
        detail={"sessions_ended": ended},
    )
    return ended


def scim_token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@transaction.atomic
def scim_token_create(*, connection: SsoConnection, actor: Actor) -> str:
    token = SCIM_TOKEN_PREFIX + secrets.token_urlsafe(32)
    connection.scim_token_hash = scim_token_hash(token)
    connection.scim_token_hint = token[:10]
    connection.save(update_fields=["scim_token_hash", "scim_token_hint", "updated_at"])
    audit_record(
        host_id=connection.host_id,
        kind="sso.scim_token_created",
        actor=actor,
        summary="A new SCIM token was issued (the previous one stops working)",
        subject_type="sso",
        subject_id=connection.host_id,
    )
    return token
