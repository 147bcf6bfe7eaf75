"""Organisation sign-in (docs/host-integration.md §11) against a real OpenID Provider
(panva's oidc-provider, tests/oidc_provider): the connection over the API,
the authorization-code flow with PKCE, state and nonce, staff created just
in time and their role from the claim at every sign-in, and every refusal
with its reason, on the page and in the ledger."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from switchboard.models import AuditEntry, Role, SsoConnection, StaffIdentity, StaffSession, User
from tests.live import free_port
from tests.org.oidc import OpenIdProvider, path_of

# The OpenID Provider is a real Node process (started once per run). Staff
# sign-in is held to both databases in CI, so the SQLite pass runs these too.
pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


def _connect(personas, idp: OpenIdProvider, **extra) -> dict:
    client_id, secret = idp.register_client(f"{settings.PUBLIC_BASE_URL}/sso/oidc/callback")
    body = {
        "issuer": idp.issuer,
        "client_id": client_id,
        "client_secret": secret,
        "email_domains": ["acme.test"],
        "role_claim": "groups",
        "admin_values": ["switchboard-admins"],
        "auditor_values": ["switchboard-auditors"],
        "enabled": True,
        **extra,
    }
    answer = personas.acme_api.put("/sso", json=body)
    assert answer.status_code == 200, answer.content
    return answer.json()


def _sign_in(idp: OpenIdProvider, login: str, email: str = "", client: Client | None = None):
    """The whole flow: /sso/start → the IdP's form → /sso/oidc/callback.
    Returns (the callback's answer, the browser, the callback URL)."""
    client = client or Client()
    start = client.get("/sso/start", {"email": email or f"{login}@acme.test"})
    assert start.status_code == 302, start.content
    callback = idp.sign_in(start["Location"], login)
    assert callback.startswith(f"{settings.PUBLIC_BASE_URL}/sso/oidc/callback?")
    return client.get(path_of(callback)), client, callback


def _refusals(personas) -> list[dict]:
    return [
        e.detail
        for e in AuditEntry.objects.filter(host=personas.acme, kind="staff.sign_in_refused")
    ]


def test_the_connection_is_saved_after_discovery_and_never_shows_the_secret(personas, idp):
    saved = _connect(personas, idp)
    assert saved["redirect_uri"] == f"{settings.PUBLIC_BASE_URL}/sso/oidc/callback"
    assert saved["scim"] == {"enabled": False, "token_hint": None}
    shown = personas.acme_api.get("/sso")
    assert shown.status_code == 200 and "client_secret" not in shown.json()
    assert SsoConnection.objects.get(host=personas.acme).client_secret["secret"] not in str(
        shown.json()
    )
    assert personas.bravo_api.get("/sso").status_code == 404

    # Discovery unreachable: 422 naming the issuer; the connection as it was.
    nobody = f"http://127.0.0.1:{free_port()}"
    refused = personas.acme_api.put("/sso", json={**saved, "client_secret": "x", "issuer": nobody})
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "issuer"
    assert personas.acme_api.get("/sso").json()["issuer"] == idp.issuer

    token = personas.acme_api.post("/sso/scim-token")
    assert token.status_code == 201 and token.json()["token"].startswith("scim_")
    again = _connect(personas, idp)  # a PUT keeps the SCIM token
    assert again["scim"]["enabled"] and again["scim"]["token_hint"]


def test_an_unknown_domain_or_a_disabled_connection_is_a_page_not_a_redirect(personas, idp):
    _connect(personas, idp, enabled=False)
    for email in ("pat@acme.test", "pat@elsewhere.test", "no-at-sign"):
        answer = Client().get("/sso/start", {"email": email})
        assert answer.status_code == 404 and b"not available" in answer.content
    sign_in_page = Client().get("/signin/").content.decode()
    assert 'action="/sso/start"' in sign_in_page and 'name="email"' in sign_in_page
    assert "Sign in with your organisation" in sign_in_page


def test_admin_and_auditor_sign_in_and_a_group_change_applies_at_the_next(personas, idp):
    _connect(personas, idp)
    # The sign-in form may be redirected to the IdP (CSP form-action), nowhere else.
    policy = Client().get("/signin/")["Content-Security-Policy"]
    assert f"form-action 'self' {idp.issuer};" in policy
    idp.account("ada-1", email="Ada@acme.test", groups=["switchboard-admins", "everyone"])
    answer, browser, _ = _sign_in(idp, "ada-1")
    assert answer.status_code == 302 and answer["Location"] == "/staff/"
    ada = User.objects.get(identities__subject="ada-1")
    assert ada.role == Role.ADMIN and ada.host == personas.acme and ada.email == "ada@acme.test"
    assert browser.get("/staff/servers/").status_code == 200
    signed_in = AuditEntry.objects.filter(host=personas.acme, kind="staff.signed_in").first()
    assert signed_in.detail == {
        "method": "sso",
        "issuer": idp.issuer,
        "sub": "ada-1",
        "email": "ada@acme.test",
        "role": "admin",
    }
    session = StaffSession.objects.get(user=ada)
    assert session.method == "sso"
    max_age = (session.expires_at - timezone.now()).total_seconds()
    assert settings.SSO_SESSION_MAX_AGE - 60 < max_age <= settings.SSO_SESSION_MAX_AGE
    stored = Session.objects.get(session_key=session.session_key)
    assert abs((stored.expire_date - session.expires_at).total_seconds()) < 2

    # Moved to the auditors' group at the IdP: auditor at the next sign-in.
    idp.account("ada-1", email="ada@acme.test", groups=["switchboard-auditors"])
    answer, browser, _ = _sign_in(idp, "ada-1")
    assert answer.status_code == 302
    ada.refresh_from_db()
    assert ada.role == Role.AUDITOR and StaffIdentity.objects.filter(user=ada).count() == 1
    changed = AuditEntry.objects.get(host=personas.acme, kind="staff.role_changed")
    assert changed.detail == {"email": "ada@acme.test", "from": "admin", "to": "auditor"}
    # Auditors change nothing.
    assert browser.post("/staff/keys/new", {"name": "x"}).status_code == 403


def _deactivate(sub):
    User.objects.filter(identities__subject=sub).update(is_active=False)


@pytest.mark.parametrize(
    ("reason", "account", "misbehave", "before"),
    [
        ("no_role", {"groups": ["everyone"]}, {}, None),
        ("domain_not_allowed", {"email": "eve@elsewhere.test"}, {}, None),
        ("email_not_verified", {"verified": False}, {}, None),
        ("wrong_audience", {}, {"aud": "some-other-client"}, None),
        ("nonce_mismatch", {}, {"nonce": "not-the-nonce-we-sent"}, None),
        ("nonce_mismatch", {}, {"drop_nonce": True}, None),
        ("token_expired", {}, {"exp_offset": -3600}, None),
        ("invalid_signature", {}, {"foreign_key": True}, None),
        ("wrong_issuer", {}, {"iss": "https://impostor.example"}, None),
        ("deactivated", {}, {}, _deactivate),
    ],
)
def test_each_refusal_is_a_page_with_its_reason_and_a_ledger_entry(
    personas, idp, reason, account, misbehave, before
):
    _connect(personas, idp)
    sub = f"{reason}-{len(misbehave)}-{len(account)}"
    claims = {"email": f"{sub}@acme.test", "groups": ["switchboard-admins"], **account}
    idp.account(sub, **claims)
    if before is not None:  # signed in once, then deactivated here
        assert _sign_in(idp, sub)[0].status_code == 302
        before(sub)
    idp.misbehave(**misbehave)
    answer, browser, _ = _sign_in(idp, sub, email=f"{sub}@acme.test")
    assert answer.status_code == 403
    assert f'<code class="refusal-reason">{reason}</code>' in answer.content.decode()
    assert browser.get("/staff/").status_code == 401  # not signed in
    (refusal,) = _refusals(personas)
    assert refusal["reason"] == reason and refusal["issuer"] == idp.issuer
    assert "id_token" not in str(refusal) and "eyJ" not in str(refusal)
    if reason not in ("deactivated",):
        assert not User.objects.filter(email=claims["email"].lower()).exists()


def test_a_replayed_state_is_refused_without_a_ledger_entry(personas, idp):
    _connect(personas, idp)
    idp.account("rex", email="rex@acme.test", groups=["switchboard-admins"])
    answer, browser, callback = _sign_in(idp, "rex")
    assert answer.status_code == 302
    for replay_in in (browser, Client()):  # the same browser, and another one
        replayed = replay_in.get(path_of(callback))
        assert replayed.status_code == 403 and b">state_mismatch<" in replayed.content
    assert _refusals(personas) == []


def test_deleting_the_connection_signs_out_sso_staff_not_link_staff(personas, idp):
    _connect(personas, idp)
    idp.account("sam", email="sam@acme.test", groups=["switchboard-admins"])
    answer, browser, _ = _sign_in(idp, "sam")
    assert browser.get("/staff/").status_code == 200
    assert personas.acme_api.delete("/sso").status_code == 204
    assert browser.get("/staff/").status_code == 401
    assert personas.acme_api.get("/sso").status_code == 404
    ended = AuditEntry.objects.get(host=personas.acme, kind="staff.sessions_ended")
    assert ended.detail["email"] == "sam@acme.test" and ended.detail["sessions"] == 1


def test_a_break_glass_link_still_signs_staff_in_and_is_labelled_so(personas):
    from switchboard.actors import Actor
    from switchboard.services.users import login_link_create

    url, _ = login_link_create(user=personas.admin, actor=Actor.system("create_staff"))
    browser = Client()
    assert browser.get(path_of(url).rstrip("?")).status_code == 302
    assert browser.get("/staff/").status_code == 200
    entry = AuditEntry.objects.get(host=personas.acme, kind="staff.signed_in")
    assert entry.detail == {"method": "link", "email": "admin@acme.test", "role": "admin"}
    assert "break-glass" in entry.summary
    assert StaffSession.objects.get(user=personas.admin).method == "link"
