"""End to end in Chromium against the real stack (daphne, Redis channel
layer) and a real OpenID Provider: an admin and an auditor sign in through
the organisation; SCIM deactivates the auditor, whose open live page is
signed out and its socket closed within 5 s; scim2-tester passes against
the live /scim/v2/ endpoint."""

from __future__ import annotations

import re

import httpx
import httpx2
import pytest
from playwright.sync_api import expect
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import Status, check_server

from switchboard.models import AuditEntry, Role, User
from tests.hostapi import Host

# Held to both databases in CI (the SQLite pass runs tests marked sqlite).
pytestmark = [pytest.mark.browser, pytest.mark.processes, pytest.mark.sqlite]


def _sign_in_at_the_idp(page, base_url: str, email: str, account: str) -> None:
    page.goto(f"{base_url}/signin/")
    page.get_by_label("Work email").fill(email)
    page.get_by_role("button", name="Sign in with your organisation").click()
    expect(page.get_by_role("heading", name="Test identity provider")).to_be_visible()
    page.get_by_label("Account").fill(account)
    page.get_by_role("button", name="Sign in at the IdP").click()


def test_staff_sign_in_through_the_idp_and_scim_signs_a_leaver_out(live, tpersonas, idp, browser):
    host = Host(live, tpersonas.acme_key)
    client_id, secret = idp.register_client(f"{live.base_url}/sso/oidc/callback")
    host(
        "PUT",
        "/sso",
        {
            "issuer": idp.issuer,
            "client_id": client_id,
            "client_secret": secret,
            "email_domains": ["acme.test"],
            "role_claim": "groups",
            "admin_values": ["switchboard-admins"],
            "auditor_values": ["switchboard-auditors"],
            "enabled": True,
        },
    )
    idp.account("ada", email="ada@acme.test", groups=["switchboard-admins"])
    idp.account("otto", email="otto@acme.test", groups=["switchboard-auditors"])

    admin = browser.new_context().new_page()
    _sign_in_at_the_idp(admin, live.base_url, "ada@acme.test", "ada")
    expect(admin).to_have_url(re.compile(r"/staff/$"))
    expect(admin.get_by_role("heading", name="Acme")).to_be_visible()
    admin.get_by_role("link", name="Sign-in and sessions").first.click()
    expect(admin.locator("#mine-h + table")).to_contain_text("Organisation sign-in (SSO)")

    auditor = browser.new_context().new_page()
    _sign_in_at_the_idp(auditor, live.base_url, "otto@acme.test", "otto")
    expect(auditor).to_have_url(re.compile(r"/staff/$"))
    assert User.objects.get(email="otto@acme.test").role == Role.AUDITOR
    auditor.goto(f"{live.base_url}/staff/audit/")
    auditor.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")

    # The organisation provisions Otto (their IdP id is their sub), then
    # deactivates them: the open page's socket closes within 5 s.
    token = host("POST", "/sso/scim-token")["token"]
    scim = httpx.Client(
        base_url=f"{live.base_url}/scim/v2",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/scim+json"},
        timeout=10,
    )
    otto = scim.post(
        "/Users",
        json={
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
            "userName": "otto@acme.test",
            "externalId": "otto",
        },
    ).json()
    assert User.objects.get(email="otto@acme.test").role == Role.AUDITOR  # kept
    answer = scim.patch(
        f"/Users/{otto['id']}",
        json={
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
            "Operations": [{"op": "replace", "path": "active", "value": False}],
        },
    )
    assert answer.status_code in (200, 204), answer.text
    auditor.wait_for_function(
        "() => document.body.getAttribute('data-live') !== 'on'", timeout=5_000
    )
    auditor.reload()
    expect(auditor.get_by_role("heading", name="Please sign in")).to_be_visible()
    # And the IdP admitting them again (its own session still open) is not enough.
    auditor.goto(f"{live.base_url}/signin/")
    auditor.get_by_label("Work email").fill("otto@acme.test")
    auditor.get_by_role("button", name="Sign in with your organisation").click()
    expect(auditor.locator("code.refusal-reason")).to_have_text("deactivated")
    refusal = AuditEntry.objects.filter(kind="staff.sign_in_refused").first()
    assert refusal.detail["reason"] == "deactivated"
    expect(admin.get_by_role("heading", name="Sign-in and sessions")).to_be_visible()

    # The independent checker, against the live endpoint.
    checker = SyncSCIMClient(
        httpx2.Client(
            base_url=f"{live.base_url}/scim/v2",
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
        )
    )
    results = check_server(checker, resource_types=["User", "Group"])
    bad = [(r.title, r.reason) for r in results if r.status in (Status.ERROR, Status.CRITICAL)]
    assert not bad, bad
