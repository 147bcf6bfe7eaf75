"""The OIDC sign-in of staff (docs/host-integration.md §11): the authorization-code
flow with PKCE (S256), ``state`` and ``nonce``.

The protocol pieces come from maintained libraries: authlib builds the
authorization URL, the PKCE challenge and the token request and encodes the
client's authentication; joserfc (authlib's JOSE implementation) verifies
the ID token's signature against the issuer's JWKS and its claims. The HTTP
to the IdP goes through the outbound guard (``idp_http``). What is pending
between the redirect and the callback lives in the browser's session, keyed
by ``state``, and is taken out once: a replayed ``state`` matches nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx
from authlib.common.security import generate_token
from authlib.oauth2.auth import ClientAuth
from authlib.oauth2.rfc6749.parameters import prepare_grant_uri, prepare_token_request
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from joserfc import jwt
from joserfc.errors import (
    BadSignatureError,
    DecodeError,
    ExpiredTokenError,
    InvalidClaimError,
    JoseError,
    MissingClaimError,
)
from joserfc.jwk import KeySet

from switchboard.actors import Actor
from switchboard.models import Role, ScimResource, SsoConnection, StaffIdentity, User
from switchboard.services.audit import audit_record
from switchboard.sso.connections import redirect_uri
from switchboard.sso.idp_http import IdpUnreachable, idp_client, idp_get_json

PENDING_KEY = "sso_pending"
PENDING_TTL = 600  # seconds a person may spend at the IdP
PENDING_MAX = 5  # sign-ins started in other tabs of the same browser
CLOCK_LEEWAY = 60  # seconds of clock skew allowed on exp/iat


class SignInRefused(Exception):
    """A refusal (403). ``host_id`` is None when the host is unknown (a
    ``state`` matching no sign-in): then nothing is written to the ledger."""

    def __init__(self, reason: str, *, host_id: str | None = None, issuer: str = "", email=""):
        super().__init__(reason)
        self.reason = reason
        self.host_id = host_id
        self.issuer = issuer
        self.email = email


class IdpFailed(Exception):
    """The IdP answered an error or could not be reached (502, no ledger)."""


def connection_for_email(email: str) -> SsoConnection | None:
    domain = email.rpartition("@")[2].strip().lower()
    if not domain:
        return None
    for connection in SsoConnection.objects.filter(enabled=True).order_by("host_id"):
        if domain in connection.email_domains:
            return connection
    return None


def _scopes(connection: SsoConnection) -> str:
    scopes = ["openid", "email", "profile"]
    if connection.role_claim in connection.discovery.get("scopes_supported", []):
        scopes.append(connection.role_claim)
    return " ".join(scopes)


def sign_in_start(*, session, connection: SsoConnection, email: str) -> str:
    """Where to send the browser (the IdP's authorization endpoint); the
    pending sign-in goes into ``session``."""
    state, nonce, verifier = generate_token(32), generate_token(32), generate_token(64)
    pending = dict(session.get(PENDING_KEY, {}))
    now = time.time()
    pending = {k: v for k, v in pending.items() if now - v["at"] < PENDING_TTL}
    while len(pending) >= PENDING_MAX:
        pending.pop(min(pending, key=lambda k: pending[k]["at"]))
    pending[state] = {"host": connection.host_id, "nonce": nonce, "verifier": verifier, "at": now}
    session[PENDING_KEY] = pending
    return prepare_grant_uri(
        connection.discovery["authorization_endpoint"],
        client_id=connection.client_id,
        response_type="code",
        redirect_uri=redirect_uri(),
        scope=_scopes(connection),
        state=state,
        nonce=nonce,
        code_challenge=create_s256_code_challenge(verifier),
        code_challenge_method="S256",
        login_hint=email,
    )


def _pending_take(session, state: str) -> dict[str, Any]:
    pending = dict(session.get(PENDING_KEY, {}))
    found = pending.pop(state, None) if state else None
    session[PENDING_KEY] = pending
    if found is None:
        raise SignInRefused("state_mismatch")
    if time.time() - found["at"] >= PENDING_TTL:
        raise SignInRefused("state_mismatch", host_id=found["host"])
    return found


def _auth_method(connection: SsoConnection) -> str:
    methods = connection.discovery.get("token_endpoint_auth_methods_supported")
    if methods and "client_secret_basic" not in methods and "client_secret_post" in methods:
        return "client_secret_post"
    return "client_secret_basic"


def _token_exchange(connection: SsoConnection, *, code: str, verifier: str) -> dict[str, Any]:
    url = connection.discovery["token_endpoint"]
    body = prepare_token_request(
        "authorization_code", code=code, redirect_uri=redirect_uri(), code_verifier=verifier
    )
    secret = connection.client_secret["secret"]
    _, headers, body = ClientAuth(connection.client_id, secret, _auth_method(connection)).prepare(
        "POST", url, {"Content-Type": "application/x-www-form-urlencoded"}, body
    )
    try:
        with idp_client(url) as client:
            answer = client.post(url, content=body, headers=headers)
    except (httpx.HTTPError, httpx.InvalidURL, IdpUnreachable) as exc:
        raise IdpFailed(f"the token endpoint could not be reached: {exc}") from None
    try:
        data = answer.json()
    except ValueError:
        data = {}
    if answer.status_code != 200 or not isinstance(data.get("id_token"), str):
        raise IdpFailed(f"the token endpoint answered {answer.status_code} {data.get('error', '')}")
    return data


_CLAIM_REASONS = {"iss": "wrong_issuer", "aud": "wrong_audience", "nonce": "nonce_mismatch"}


def id_token_verify(connection: SsoConnection, id_token: str, *, nonce: str) -> dict[str, Any]:
    """The ID token's claims once its signature (the issuer's JWKS), ``iss``,
    ``aud``, ``exp`` and ``nonce`` hold; ``SignInRefused`` naming the first
    that does not."""
    refused = {"host_id": connection.host_id, "issuer": connection.issuer}
    try:
        keys = KeySet.import_key_set(idp_get_json(connection.discovery["jwks_uri"]))  # type: ignore[arg-type]
    except (IdpUnreachable, JoseError, ValueError) as exc:
        raise IdpFailed(f"the issuer's keys could not be read: {exc}") from None
    algorithms = connection.discovery.get("id_token_signing_alg_values_supported") or ["RS256"]
    try:
        token = jwt.decode(id_token, keys, algorithms=[a for a in algorithms if a != "none"])
    except (BadSignatureError, DecodeError, JoseError):
        raise SignInRefused("invalid_signature", **refused) from None
    claims = token.claims
    registry = jwt.JWTClaimsRegistry(
        leeway=CLOCK_LEEWAY,
        iss={"essential": True, "value": connection.issuer},
        aud={"essential": True, "value": connection.client_id},
        exp={"essential": True},
        sub={"essential": True},
        nonce={"essential": True, "value": nonce},
    )
    try:
        registry.validate(claims)
    except ExpiredTokenError:
        raise SignInRefused("token_expired", **refused) from None
    except (InvalidClaimError, MissingClaimError) as exc:
        reason = _CLAIM_REASONS.get(exc.claim, "invalid_signature")
        raise SignInRefused(reason, **refused) from None
    # With several audiences the token must be issued to us (OpenID Connect Core 1.0 §3.1.3.7).
    audiences = claims.get("aud")
    if (
        isinstance(audiences, list)
        and len(audiences) > 1
        and claims.get("azp") != connection.client_id
    ):
        raise SignInRefused("wrong_audience", **refused)
    return claims


def _userinfo(connection: SsoConnection, access_token: str | None) -> dict[str, Any]:
    url = connection.discovery.get("userinfo_endpoint")
    if not url or not access_token:
        return {}
    try:
        return idp_get_json(url, Authorization=f"Bearer {access_token}")
    except IdpUnreachable:
        return {}


def role_for(connection: SsoConnection, value: Any) -> str | None:
    values = [value] if isinstance(value, str) else list(value or [])
    values = [str(v) for v in values]
    if any(v in connection.admin_values for v in values):
        return Role.ADMIN
    if any(v in connection.auditor_values for v in values):
        return Role.AUDITOR
    return None


@dataclass
class SignedIn:
    user: User
    expires_at: Any


def sign_in_finish(*, session, state: str, code: str) -> SignedIn:
    """Everything after the IdP sends the browser back: the checks in the
    contract's order, then the staff account (matched on issuer and ``sub``,
    created just in time) with the role worked out again from the claim."""
    pending = _pending_take(session, state)
    connection = SsoConnection.objects.filter(host_id=pending["host"], enabled=True).first()
    if connection is None:
        raise SignInRefused("state_mismatch")
    tokens = _token_exchange(connection, code=code, verifier=pending["verifier"])
    claims = id_token_verify(connection, tokens["id_token"], nonce=pending["nonce"])
    needs_userinfo = connection.role_claim not in claims or "email" not in claims
    info = _userinfo(connection, tokens.get("access_token")) if needs_userinfo else {}
    if info and info.get("sub") != claims["sub"]:
        info = {}  # userinfo about someone else is ignored (OpenID Connect Core 1.0 §5.3.2)
    merged = {**info, **claims}
    email = str(merged.get("email") or "").strip().lower()
    refused = {"host_id": connection.host_id, "issuer": connection.issuer, "email": email}
    if merged.get("email_verified") is not True or not email:
        raise SignInRefused("email_not_verified", **refused)
    if email.rpartition("@")[2] not in connection.email_domains:
        raise SignInRefused("domain_not_allowed", **refused)
    return _staff_sign_in(connection, claims["sub"], email, merged, refused)


@transaction.atomic
def _staff_sign_in(connection, sub: str, email: str, claims: dict, refused: dict) -> SignedIn:
    identity = (
        StaffIdentity.objects.select_related("user")
        .filter(issuer=connection.issuer, subject=sub, user__host_id=connection.host_id)
        .first()
    )
    user = identity.user if identity else None
    if user is not None and (not user.is_active or user.deleted_at is not None):
        raise SignInRefused("deactivated", **refused)
    if user is None and _deactivated_by_scim(connection, sub, email):
        raise SignInRefused("deactivated", **refused)
    role = role_for(connection, claims.get(connection.role_claim))
    if role is None:
        raise SignInRefused("no_role", **refused)
    if user is None:
        user = _provisioned(connection, sub) or User(host_id=connection.host_id, role=role)
        if not user.username:
            user.username = user.id
            user.set_unusable_password()
        user.email = email
        user.display_name = str(claims.get("name") or email)[:200]
        user.role = role
        user.save()
        StaffIdentity.objects.create(user=user, issuer=connection.issuer, subject=sub)
    elif user.role != role:
        previous = user.role
        user.role = role
        user.save(update_fields=["role"])
        audit_record(
            host_id=connection.host_id,
            kind="staff.role_changed",
            actor=Actor.system("organisation sign-in"),
            summary=f"{email} is now {role} (was {previous}), as the IdP says",
            subject_type="user",
            subject_id=user.id,
            detail={"email": email, "from": previous, "to": role},
        )
    if user.email != email:
        user.email = email
        user.save(update_fields=["email"])
    audit_record(
        host_id=connection.host_id,
        kind="staff.signed_in",
        actor=Actor.for_user(user),
        summary=f"{email} signed in through the organisation as {role}",
        subject_type="user",
        subject_id=user.id,
        detail={
            "method": "sso",
            "issuer": connection.issuer,
            "sub": sub,
            "email": email,
            "role": role,
        },
    )
    expires_at = timezone.now() + timedelta(seconds=settings.SSO_SESSION_MAX_AGE)
    return SignedIn(user=user, expires_at=expires_at)


def _provisioned(connection: SsoConnection, sub: str) -> User | None:
    """A staff account SCIM created ahead of the first sign-in, by the
    IdP's id (SCIM ``externalId``), never by the email alone."""
    row = (
        ScimResource.objects.filter(
            host_id=connection.host_id, resource_type="User", external_id=sub
        )
        .select_related("user")
        .first()
    )
    return row.user if row is not None else None


def _deactivated_by_scim(connection: SsoConnection, sub: str, email: str) -> bool:
    """SCIM said this person is gone (``active: false`` or deleted), by
    ``externalId`` or by their work email: refused even when the IdP admits them."""
    gone = User.objects.filter(host_id=connection.host_id, is_active=False).exclude(
        role=Role.END_USER
    )
    by_scim = ScimResource.objects.filter(host_id=connection.host_id, resource_type="User")
    return gone.filter(
        Q(scim_resources__in=by_scim.filter(Q(external_id=sub) | Q(user_name=email)))
        | Q(email__iexact=email, scim_resources__isnull=False)
    ).exists()


def sign_in_refusal_record(refusal: SignInRefused) -> None:
    if refusal.host_id is None:
        return
    audit_record(
        host_id=refusal.host_id,
        kind="staff.sign_in_refused",
        actor=Actor.system("organisation sign-in"),
        summary=f"Organisation sign-in refused: {refusal.reason}"
        + (f" ({refusal.email})" if refusal.email else ""),
        subject_type="sso",
        subject_id=refusal.host_id,
        detail={
            "reason": refusal.reason,
            "issuer": refusal.issuer,
            **({"email": refusal.email} if refusal.email else {}),
        },
    )
