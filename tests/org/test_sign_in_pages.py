"""The staff page for sign-in: the OIDC connection (admins change it,
auditors read it), the SCIM token, and sessions: one's own with "sign out
everywhere", and for admins everyone's."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from switchboard.actors import Actor
from switchboard.models import AuditEntry, SsoConnection, StaffSession
from switchboard.services.users import login_link_create, staff_create
from tests.live import free_port
from tests.org.oidc import path_of

# The real OpenID Provider is a Node process. Staff sign-in and sessions are
# held to both databases in CI, so the SQLite pass runs these too.
pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


def _linked(user) -> Client:
    url, _ = login_link_create(user=user, actor=Actor.system("test"))
    browser = Client(HTTP_USER_AGENT="Pytest Browser/1.0")
    assert browser.get(path_of(url).rstrip("?")).status_code == 302
    return browser


def test_admins_connect_the_idp_on_the_page_and_auditors_only_read_it(personas, idp):
    client_id, secret = idp.register_client(f"{settings.PUBLIC_BASE_URL}/sso/oidc/callback")
    admin = _linked(personas.admin)
    form = {
        "issuer": idp.issuer,
        "client_id": client_id,
        "client_secret": secret,
        "email_domains": "acme.test\nacme-corp.test",
        "role_claim": "groups",
        "admin_values": "switchboard-admins",
        "auditor_values": "switchboard-auditors, readers",
        "enabled": "on",
    }
    unreachable = {**form, "issuer": f"http://127.0.0.1:{free_port()}"}
    refused = admin.post("/staff/sign-in/sso", unreachable)
    assert refused.status_code == 422 and b"discovery document could not be read" in refused.content
    assert not SsoConnection.objects.filter(host=personas.acme).exists()
    assert admin.post("/staff/sign-in/sso", form).status_code == 302
    connection = SsoConnection.objects.get(host=personas.acme)
    assert connection.email_domains == ["acme.test", "acme-corp.test"]
    assert connection.auditor_values == ["switchboard-auditors", "readers"]
    page = admin.get("/staff/sign-in/").content.decode()
    assert f"{settings.PUBLIC_BASE_URL}/sso/oidc/callback" in page and secret not in page

    # Saved again without a secret: the stored one stays.
    assert admin.post("/staff/sign-in/sso", {**form, "client_secret": ""}).status_code == 302
    connection.refresh_from_db()
    assert connection.client_secret["secret"] == secret

    token_page = admin.post("/staff/sign-in/scim-token")
    assert token_page.status_code == 200 and b"scim_" in token_page.content
    assert token_page["Cache-Control"] == "no-store"

    auditor = _linked(personas.auditor)
    shown = auditor.get("/staff/sign-in/").content.decode()
    assert idp.issuer in shown and 'action="/staff/sign-in/sso"' not in shown
    assert auditor.post("/staff/sign-in/sso", form).status_code == 403
    assert auditor.post("/staff/sign-in/scim-token").status_code == 403


def test_staff_see_their_sessions_and_sign_out_everywhere(personas):
    laptop, phone = _linked(personas.auditor), _linked(personas.auditor)
    page = laptop.get("/staff/sign-in/").content.decode()
    assert page.count("One-time link (break-glass)") == 2 and "(this browser)" in page
    assert "Pytest Browser/1.0" in page
    assert "Other staff" not in page  # auditors see only their own
    answer = laptop.post("/staff/sign-in/sessions/end", {"which": "mine"})
    assert answer.status_code == 302
    assert laptop.get("/staff/").status_code == 401 and phone.get("/staff/").status_code == 401
    ended = AuditEntry.objects.get(host=personas.acme, kind="staff.sessions_ended")
    assert ended.detail == {
        "email": "auditor@acme.test",
        "sessions": 2,
        "reason": "signed_out_everywhere",
    }


def test_admins_end_other_staffs_sessions_and_auditors_cannot(personas):
    admin, auditor = _linked(personas.admin), _linked(personas.auditor)
    theirs = StaffSession.objects.get(user=personas.auditor)
    mine = StaffSession.objects.get(user=personas.admin)
    assert personas.auditor.email in admin.get("/staff/sign-in/").content.decode()
    assert auditor.post("/staff/sign-in/sessions/end", {"which": mine.id}).status_code == 403
    assert admin.get("/staff/").status_code == 200
    assert admin.post("/staff/sign-in/sessions/end", {"which": theirs.id}).status_code == 302
    assert auditor.get("/staff/").status_code == 401 and admin.get("/staff/").status_code == 200
    # Another host's admin cannot name this host's sessions.
    bravo_admin = staff_create(
        host=personas.bravo, email="admin@bravo.test", role="admin", actor=Actor.system()
    )
    other = _linked(bravo_admin)
    assert other.post("/staff/sign-in/sessions/end", {"which": mine.id}).status_code == 403
    assert admin.get("/staff/").status_code == 200
