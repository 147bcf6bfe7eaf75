"""End to end in Chromium against the real stack (daphne, Redis channel
layer) and a real OpenID Provider: an admin and an auditor sign in through
the organisation; SCIM deactivates the auditor, whose open live page is
signed out and its socket closed within 5 s; scim2-tester passes against
the live /scim/v2/ endpoint. A group change at the IdP shows at the next
sign-in, and every refusal (a person the organisation does not admit here, a
faulty ID token, a replayed callback) is a page naming its reason.

The faulty ID tokens come from the IdP itself: tests/oidc_provider re-signs
the token it issues with the changes ``idp.misbehave`` asks for."""

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


@pytest.fixture
def new_page(browser):
    """Pages in contexts of their own (separate cookies: separate browsers),
    closed after the test whatever it found."""
    contexts = []

    def opened():
        contexts.append(browser.new_context())
        page = contexts[-1].new_page()
        page.set_default_timeout(15_000)
        return page

    yield opened
    for context in contexts:
        context.close()


def _connect(live, tpersonas, idp) -> None:
    client_id, secret = idp.register_client(f"{live.base_url}/sso/oidc/callback")
    Host(live, tpersonas.acme_key)(
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


def _start_sign_in(page, base_url: str, email: str) -> None:
    page.goto(f"{base_url}/signin/")
    page.get_by_label("Work email").fill(email)
    page.get_by_role("button", name="Sign in with your organisation").click()


def _sign_in_at_the_idp(page, base_url: str, email: str, account: str):
    """Through the IdP's form; returns the callback's response (where the
    IdP sent the browser back, and what the console answered)."""
    _start_sign_in(page, base_url, email)
    expect(page.get_by_role("heading", name="Test identity provider")).to_be_visible()
    page.get_by_label("Account").fill(account)
    with page.expect_response(lambda r: "/sso/oidc/callback?" in r.url) as callback:
        page.get_by_role("button", name="Sign in at the IdP").click()
    return callback.value


def _expect_refused(page, reason: str, explained: str, case: str) -> None:
    """The refusal page: its reason code and the sentence saying it."""
    expect(
        page.get_by_role("heading", name="Sign-in refused"), f"{case}: no refusal page"
    ).to_be_visible()
    expect(page.locator("code.refusal-reason"), f"{case}: the wrong reason").to_have_text(reason)
    expect(page.get_by_role("alert"), f"{case}: the reason is not explained").to_contain_text(
        explained
    )


def test_staff_sign_in_through_the_idp_and_scim_signs_a_leaver_out(live, tpersonas, idp, new_page):
    host = Host(live, tpersonas.acme_key)
    _connect(live, tpersonas, idp)
    idp.account("ada", email="ada@acme.test", groups=["switchboard-admins"])
    idp.account("otto", email="otto@acme.test", groups=["switchboard-auditors"])

    admin = new_page()
    _sign_in_at_the_idp(admin, live.base_url, "ada@acme.test", "ada")
    expect(admin).to_have_url(re.compile(r"/staff/$"))
    expect(admin.get_by_role("heading", name="Acme")).to_be_visible()
    admin.get_by_role("link", name="Sign-in and sessions").first.click()
    expect(admin.locator("#mine-h + table")).to_contain_text("Organisation sign-in (SSO)")

    auditor = new_page()
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


def test_a_group_change_at_the_idp_shows_at_the_next_sign_in(live, tpersonas, idp, new_page):
    _connect(live, tpersonas, idp)
    idp.account("gus", email="gus@acme.test", groups=["switchboard-auditors"])
    page = new_page()
    _sign_in_at_the_idp(page, live.base_url, "gus@acme.test", "gus")
    expect(page).to_have_url(re.compile(r"/staff/$"))
    expect(page.locator(".whoami .badge")).to_have_text("Auditor")
    page.goto(f"{live.base_url}/staff/sign-in/")
    expect(page.get_by_role("heading", name="Sign-in and sessions")).to_be_visible()
    save = page.get_by_role("button", name="Save organisation sign-in")
    expect(save, "an auditor is offered the connection's form").to_have_count(0)

    # Moved to the admins' group at the IdP; signed out and in again (the
    # IdP's own session is still open, so it sends the browser straight back).
    idp.account("gus", email="gus@acme.test", groups=["switchboard-admins"])
    page.locator(".whoami").get_by_role("button", name="Sign out").click()
    expect(page.locator(".whoami")).to_have_count(0)
    _start_sign_in(page, live.base_url, "gus@acme.test")
    expect(page).to_have_url(re.compile(r"/staff/$"))
    expect(page.locator(".whoami .badge")).to_have_text("Host admin")
    page.goto(f"{live.base_url}/staff/sign-in/")
    expect(save, "the new admin is not offered the connection's form").to_be_visible()
    changed = AuditEntry.objects.get(kind="staff.role_changed")
    assert changed.detail == {"email": "gus@acme.test", "from": "auditor", "to": "admin"}


# (case, reason code, what the person's IdP account says, how the IdP's ID
# token is changed, what the page says)
REFUSALS = [
    ("no role", "no_role", {"groups": ["everyone"]}, {}, "not given you an admin or auditor role"),
    (
        "wrong domain",
        "domain_not_allowed",
        {"email": "eve@elsewhere.test"},
        {},
        "domain is not one this organisation signs in with",
    ),
    (
        "wrong audience",
        "wrong_audience",
        {},
        {"aud": "another-client"},
        "issued to another application",
    ),
    (
        "missing nonce",
        "nonce_mismatch",
        {},
        {"drop_nonce": True},
        "does not belong to this sign-in",
    ),
    (
        "wrong nonce",
        "nonce_mismatch",
        {},
        {"nonce": "not-the-nonce-we-sent"},
        "does not belong to this sign-in",
    ),
    (
        "expired token",
        "token_expired",
        {},
        {"exp_offset": -3600},
        "token from the identity provider has expired",
    ),
    (
        "unverified email",
        "email_not_verified",
        {"verified": False},
        {},
        "has not verified your email",
    ),
]


@pytest.mark.parametrize(
    ("case", "reason", "account", "misbehave", "explained"),
    REFUSALS,
    ids=[case.replace(" ", "_") for case, *_ in REFUSALS],
)
def test_each_refusal_is_a_page_naming_its_reason(
    live, tpersonas, idp, new_page, case, reason, account, misbehave, explained
):
    _connect(live, tpersonas, idp)
    sub = "eve-" + case.replace(" ", "-")
    claims = {"email": f"{sub}@acme.test", "groups": ["switchboard-admins"], **account}
    idp.account(sub, **claims)
    idp.misbehave(**misbehave)
    page = new_page()
    callback = _sign_in_at_the_idp(page, live.base_url, f"{sub}@acme.test", sub)
    assert callback.status == 403, f"{case}: the callback answered {callback.status}"
    _expect_refused(page, reason, explained, case)
    page.goto(f"{live.base_url}/staff/")
    expect(page.get_by_role("heading", name="Please sign in"), f"{case}: signed in").to_be_visible()
    refusals = [e.detail["reason"] for e in AuditEntry.objects.filter(kind="staff.sign_in_refused")]
    assert refusals == [reason], f"{case}: the ledger has {refusals}"
    assert not User.objects.filter(email=claims["email"].lower()).exists(), f"{case}: account made"


def test_a_replayed_callback_is_refused(live, tpersonas, idp, new_page):
    _connect(live, tpersonas, idp)
    idp.account("rex", email="rex@acme.test", groups=["switchboard-admins"])
    page = new_page()
    callback = _sign_in_at_the_idp(page, live.base_url, "rex@acme.test", "rex")
    expect(page).to_have_url(re.compile(r"/staff/$"))
    explained = "does not match one started in this browser (or it was already used)"
    # The same browser goes to the URL the IdP gave it again, and so does another.
    replayed = page.goto(callback.url)
    assert replayed is not None and replayed.status == 403, (
        f"the replay answered {replayed and replayed.status}"
    )
    _expect_refused(page, "state_mismatch", explained, "replayed in the same browser")
    other = new_page()
    replayed = other.goto(callback.url)
    assert replayed is not None and replayed.status == 403, (
        f"the replay elsewhere answered {replayed and replayed.status}"
    )
    _expect_refused(other, "state_mismatch", explained, "replayed in another browser")
    other.goto(f"{live.base_url}/staff/")
    expect(other.get_by_role("heading", name="Please sign in")).to_be_visible()
    # A state matching no sign-in names no host: nothing for a ledger.
    assert not AuditEntry.objects.filter(kind="staff.sign_in_refused").exists()
