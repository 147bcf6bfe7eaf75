"""Consent follows the server the user saw: a grant records the server's URL
and the hash of its registration (URL and header names, never values); staff
changing either suspends the server's grants, asks the users again and tells
the host. A new value under the same header name changes nothing."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from consent.models import ConsentRequest, Grant
from consent.selectors import grant_is_live
from outbox.models import HostDelivery
from switchboard.errors import Conflict
from switchboard.models import AuditEntry, McpServer
from switchboard.services.server_discovery import snapshot_from_declared_capabilities
from switchboard.services.server_sync import server_apply_snapshot
from switchboard.services.servers import server_register, server_update
from tests.consent.support import allow_all, capabilities, declaring_server, open_request
from tests.factories import SYSTEM

URL = "http://127.0.0.1:9/mcp"


def url_server(personas, headers=None):
    """A server reached at a URL (not synced over the wire: its declarations
    are applied as a sync would)."""
    server = server_register(
        host=personas.acme, name="Notes", actor=SYSTEM, url=URL, headers=headers, sync=False
    )
    snapshot = snapshot_from_declared_capabilities(server.id, capabilities())
    return server_apply_snapshot(server=server, snapshot=snapshot, actor=SYSTEM)


def consent_all(personas, server, user=None):
    request = open_request(personas, server, ["conversation:read", "hooks"], user=user)
    return allow_all(request)


def suspended_deliveries(personas):
    return [
        d.body["data"]
        for d in HostDelivery.objects.filter(host=personas.acme, type="consent.updated")
        if d.body["data"]["status"] == "suspended"
    ]


def test_a_grant_records_the_server_as_approved(personas):
    server = url_server(personas, headers={"Authorization": "Bearer host"})
    consent_all(personas, server)
    for grant in Grant.objects.filter(user=personas.alice):
        assert grant.server_url == URL
        assert grant.registration_hash == server.registration_hash
        assert grant.shown["server"] == {
            "url": URL,
            "header_names": ["authorization"],
            "registration_hash": server.registration_hash,
        }
    approved = AuditEntry.objects.filter(kind="consent.approved", user_id=personas.alice.id)
    assert {e.detail["server_url"] for e in approved} == {URL}
    assert "Bearer host" not in json.dumps([e.detail for e in approved])


def test_a_new_url_suspends_the_grants_tells_the_host_and_asks_again(personas):
    server = url_server(personas)
    consent_all(personas, server)
    consent_all(personas, server, user=personas.bob)
    new_url = "http://127.0.0.1:9/v2/mcp"

    answer = personas.acme_api.patch(f"/servers/{server.id}", {"url": new_url})

    assert answer.status_code == 200, answer.json()
    assert answer.json()["url"] == new_url
    grants = list(Grant.objects.filter(server=server))
    assert len(grants) == 4
    assert {(g.status, g.suspended_reason) for g in grants} == {("suspended", "url_changed")}
    for user in (personas.alice, personas.bob):
        assert grant_is_live(user=user, server_id=server.id, scope="conversation:read") is None
    told = suspended_deliveries(personas)
    assert sorted((d["user"], d["scope"]) for d in told) == [
        ("alice", "conversation:read"),
        ("alice", "hooks"),
        ("bob", "conversation:read"),
        ("bob", "hooks"),
    ]
    assert {(d["previous_status"], d["reason"]) for d in told} == {("active", "url_changed")}
    entry = AuditEntry.objects.filter(kind="consent.suspended", user_id=personas.alice.id).first()
    assert entry.detail["reason"] == "url_changed"
    assert (entry.detail["approved_server_url"], entry.detail["server_url"]) == (URL, new_url)
    assert new_url in entry.summary
    updated = AuditEntry.objects.get(kind="server.updated", server_id=server.id)
    assert (updated.detail["previous_url"], updated.detail["url"]) == (URL, new_url)
    # Each user is asked again, saying why.
    asks = ConsentRequest.objects.filter(server=server, status="pending")
    assert {(r.user_id, r.origin) for r in asks} == {
        (personas.alice.id, "registration_changed"),
        (personas.bob.id, "registration_changed"),
    }
    # Approving again records the new address; the server is live again for alice only.
    for ask in asks.filter(user=personas.alice):
        allow_all(ask)
    assert grant_is_live(user=personas.alice, server_id=server.id, scope="conversation:read")
    assert grant_is_live(user=personas.bob, server_id=server.id, scope="conversation:read") is None
    assert {g.server_url for g in Grant.objects.filter(user=personas.alice)} == {new_url}


def test_renamed_credentials_suspend_but_a_new_value_does_not(personas):
    server = url_server(personas, headers={"Authorization": "Bearer one"})
    consent_all(personas, server)

    rotated = personas.acme_api.patch(
        f"/servers/{server.id}", {"headers": {"authorization": "Bearer two"}}
    )
    assert rotated.status_code == 200
    assert set(Grant.objects.filter(server=server).values_list("status", flat=True)) == {"active"}

    renamed = personas.acme_api.patch(f"/servers/{server.id}", {"headers": {"X-Api-Key": "k-3"}})
    assert renamed.status_code == 200
    grants = Grant.objects.filter(server=server)
    assert {(g.status, g.suspended_reason) for g in grants} == {
        ("suspended", "credentials_changed")
    }
    assert [d["reason"] for d in suspended_deliveries(personas)] == ["credentials_changed"] * 2
    entry = AuditEntry.objects.filter(kind="server.updated", server_id=server.id).latest("id")
    assert entry.detail["header_names"] == ["x-api-key"]
    assert "k-3" not in json.dumps(entry.detail) and "Bearer" not in json.dumps(entry.detail)
    asks = ConsentRequest.objects.filter(server=server, status="pending")
    assert sorted(asks.values_list("origin", flat=True)) == ["registration_changed"] * 2


def test_a_host_managed_server_renamed_credentials_suspend_too(personas):
    server = declaring_server(personas.acme)
    consent_all(personas, server)
    server_update(server=server, actor=SYSTEM, headers={"X-Key": "v"})
    assert set(Grant.objects.filter(server=server).values_list("suspended_reason", flat=True)) == {
        "credentials_changed"
    }


def test_nothing_else_suspends_consent(personas):
    server = url_server(personas)
    consent_all(personas, server)
    server_update(server=server, actor=SYSTEM, name="Notes 2", trust="trusted", priority=5)
    server_update(server=server, actor=SYSTEM, url=URL)  # the same address again
    assert set(Grant.objects.filter(server=server).values_list("status", flat=True)) == {"active"}
    assert not suspended_deliveries(personas)


@pytest.fixture
def no_private_targets(settings):
    settings.ALLOW_PRIVATE_TARGETS = False


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("https://10.1.2.3/mcp", "blocked_target"),
        ("https://169.254.169.254/latest", "blocked_target"),
        ("not a url", "blocked_target"),
    ],
)
def test_a_new_url_must_pass_the_outbound_address_rules(personas, no_private_targets, url, code):
    server = McpServer.objects.create(
        host=personas.acme, name="Public", url="https://mcp.example.test/mcp", status="active"
    )
    answer = personas.acme_api.patch(f"/servers/{server.id}", {"url": url})
    assert answer.status_code == 422, answer.json()
    assert (answer.json()["error"]["code"], answer.json()["error"]["field"]) == (code, "url")
    server.refresh_from_db()
    assert server.url == "https://mcp.example.test/mcp"


def test_bad_url_changes_name_the_field(personas):
    managed = declaring_server(personas.acme)
    answer = personas.acme_api.patch(f"/servers/{managed.id}", {"url": URL})
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "url"
    server = url_server(personas)
    empty = personas.acme_api.patch(f"/servers/{server.id}", {"url": ""})
    assert empty.status_code == 422 and empty.json()["error"]["field"] == "url"
    assert personas.bravo_api.patch(f"/servers/{server.id}", {"url": URL}).status_code == 404


def test_approving_a_request_shown_before_the_change_is_refused(personas):
    server = url_server(personas)
    request = open_request(personas, server, ["conversation:read"])
    server_update(server=server, actor=SYSTEM, url="http://127.0.0.1:9/v2/mcp")
    with pytest.raises(Conflict) as refused:
        allow_all(request)
    assert refused.value.code == "registration_changed"
    assert Grant.objects.get(server=server).status == "pending"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_an_admin_changes_the_address_on_the_server_page_and_the_user_sees_why(personas):
    server = url_server(personas)
    consent_all(personas, server)
    admin = signed_in(personas.admin)
    page = admin.get(f"/staff/servers/{server.id}/").content.decode()
    assert 'name="url"' in page and "Change address" in page
    assert (
        'name="url"'
        not in signed_in(personas.auditor).get(f"/staff/servers/{server.id}/").content.decode()
    )
    assert signed_in(personas.auditor).post(
        f"/staff/servers/{server.id}/url", {"url": "http://127.0.0.1:9/x"}
    ).status_code in (302, 403)

    answer = admin.post(f"/staff/servers/{server.id}/url", {"url": "http://127.0.0.1:9/v2/mcp"})
    assert answer.status_code == 302
    assert "on hold" in admin.get(answer["Location"]).content.decode()
    assert set(Grant.objects.filter(server=server).values_list("status", flat=True)) == {
        "suspended"
    }
    cards = signed_in(personas.alice).get("/consent/servers/").content.decode()
    assert 'data-suspended-reason="url_changed"' in cards
    assert "http://127.0.0.1:9/v2/mcp" in cards and URL in cards
    ask = ConsentRequest.objects.filter(user=personas.alice, status="pending").first()
    asked = signed_in(personas.alice).get(f"/consent/{ask.id}/").content.decode()
    assert 'data-origin="registration_changed"' in asked
    staff_view = admin.get(f"/staff/consents/users/{personas.alice.id}/").content.decode()
    assert 'data-suspended-reason="url_changed"' in staff_view
