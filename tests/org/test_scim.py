"""SCIM 2.0 at /scim/v2/ (docs/host-integration.md §11): the host's token and
nothing else gets in (scim2-tester runs against the live endpoint in
test_sso_browser.py); groups give roles; deactivating or deleting a person ends their
sessions, voids their links and removes their role, each in the ledger."""

from __future__ import annotations

from functools import cache

import httpx
import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client

from switchboard.actors import Actor
from switchboard.models import AuditEntry, LoginLink, Role, SsoConnection, User
from switchboard.services.users import login_link_create
from switchboard.sso.connections import scim_token_create
from tests.org.oidc import path_of

SCIM = "application/scim+json"


def _app(environ, start_response):
    """Django's WSGI application, minus the closing of the database
    connection when a request starts or ends: the test's transaction lives
    on it (Django's test client does the same, and reconnects after itself)."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    return _django()(environ, start_response)


@cache
def _django() -> WSGIHandler:
    return WSGIHandler()  # once: it builds the middleware (WhiteNoise scans every static file)


@pytest.fixture(autouse=True)
def _signals_as_they_were():
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.fixture
def scim_token(personas) -> str:
    connection = SsoConnection.objects.create(
        host=personas.acme,
        issuer="https://idp.acme.test",
        client_id="switchboard",
        client_secret={"secret": "s"},
        email_domains=["acme.test"],
        admin_values=["switchboard-admins"],
        auditor_values=["switchboard-auditors"],
        discovery={},
    )
    return scim_token_create(connection=connection, actor=Actor.system())


def _http(token: str | None) -> httpx.Client:
    """Real HTTP requests through the whole Django stack (WSGI), in this
    thread so they see the test's database."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(
        transport=httpx.WSGITransport(app=_app),
        base_url="http://testserver/scim/v2",
        headers=headers,
    )


def test_only_the_hosts_scim_token_gets_in(personas, scim_token):
    for token in (None, "scim_wrong", personas.acme_key):
        answer = _http(token).get("/Users")
        assert answer.status_code == 401
        body = answer.json()
        assert body["schemas"] == ["urn:ietf:params:scim:api:messages:2.0:Error"]
        assert body["status"] == "401"
    assert _http(scim_token).get("/Users").status_code == 200


def _user(http, email, external_id, active=True) -> dict:
    answer = http.post(
        "/Users",
        json={
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
            "userName": email,
            "externalId": external_id,
            "active": active,
        },
        headers={"Content-Type": SCIM},
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def _group(http, name, members) -> dict:
    answer = http.post(
        "/Groups",
        json={
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
            "displayName": name,
            "members": [{"value": m["id"]} for m in members],
        },
        headers={"Content-Type": SCIM},
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_groups_give_roles_and_deactivation_ends_everything(personas, scim_token):
    http = _http(scim_token)
    kim = _user(http, "Kim@acme.test", "idp-kim")
    staff = User.objects.get(scim_resources__resource_id=kim["id"])
    assert staff.email == "kim@acme.test" and staff.role == Role.NONE
    admins = _group(http, "switchboard-admins", [kim])
    staff.refresh_from_db()
    assert staff.role == Role.ADMIN

    # Kim is signed in (a break-glass link) and has a link not used yet.
    url, _ = login_link_create(user=staff, actor=Actor.system("create_staff"))
    browser = Client()
    assert browser.get(path_of(url).rstrip("?")).status_code == 302
    unused, _ = login_link_create(user=staff, actor=Actor.system("create_staff"))
    assert browser.get("/staff/").status_code == 200

    deactivate = http.patch(
        f"/Users/{kim['id']}",
        json={
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
            "Operations": [{"op": "replace", "path": "active", "value": False}],
        },
        headers={"Content-Type": SCIM},
    )
    assert deactivate.status_code in (200, 204), deactivate.text
    assert browser.get("/staff/").status_code == 401  # the next request is signed out
    assert Client().get(path_of(unused).rstrip("?")).status_code == 410  # the link is void
    staff.refresh_from_db()
    assert not staff.is_active and staff.role == Role.NONE
    kinds = list(
        AuditEntry.objects.filter(host=personas.acme, subject_id=staff.id)
        .order_by("id")
        .values_list("kind", "detail")
    )
    recorded = {kind: detail for kind, detail in kinds}
    for kind in (
        "staff.deactivated",
        "staff.sessions_ended",
        "staff.login_links_voided",
        "staff.role_removed",
    ):
        assert recorded[kind]["email"] == "kim@acme.test", kind
    assert recorded["staff.sessions_ended"]["sessions"] == 1
    assert recorded["staff.login_links_voided"]["links"] == 1

    # Back again: active, and the admins' group gives the role back.
    back = http.patch(
        f"/Users/{kim['id']}",
        json={
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
            "Operations": [{"op": "replace", "path": "active", "value": True}],
        },
        headers={"Content-Type": SCIM},
    )
    assert back.status_code in (200, 204)
    staff.refresh_from_db()
    assert staff.is_active and staff.role == Role.ADMIN

    # Out of the group: the role goes; deleted: deactivated again.
    assert http.delete(f"/Groups/{admins['id']}").status_code == 204
    staff.refresh_from_db()
    assert staff.role == Role.NONE
    assert http.delete(f"/Users/{kim['id']}").status_code == 204
    staff.refresh_from_db()
    assert not staff.is_active
    assert LoginLink.objects.filter(user=staff, expires_at__gt=staff.date_joined).exists()
    assert http.get(f"/Users/{kim['id']}").status_code == 404


def test_another_hosts_token_sees_none_of_this_hosts_people(personas, scim_token):
    _user(_http(scim_token), "lee@acme.test", "idp-lee")
    other = SsoConnection.objects.create(
        host=personas.bravo,
        issuer="https://idp.bravo.test",
        client_id="x",
        client_secret={"secret": "s"},
        email_domains=["bravo.test"],
        discovery={},
    )
    bravo = _http(scim_token_create(connection=other, actor=Actor.system()))
    assert bravo.get("/Users").json()["totalResults"] == 0
    assert bravo.get('/Users?filter=userName eq "lee@acme.test"').json()["totalResults"] == 0
