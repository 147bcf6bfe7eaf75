"""The events dialect of each server (docs/events-client.md §8):
detected from where the capability sits, confirmed or flipped by the first
typed error, overridable by staff, shown in the API and on the server page."""

from __future__ import annotations

import pytest

from switchboard.models import AuditEntry, McpServer
from switchboard.services.server_dialects import server_events_error_seen


def _register(api, refserver):
    response = api.post("/servers", {"name": "Ref", "url": refserver.mcp_url})
    assert response.status_code == 201, response.content
    return response.json()


@pytest.mark.parametrize(
    ("locations", "dialect", "confirmed"),
    [
        (["extensions"], "sep-3415", True),
        (["toplevel"], "chatgpt", True),
        (["experimental"], "chatgpt", True),
        (["extensions", "toplevel"], "sep-3415", False),
    ],
)
def test_50_the_dialect_follows_where_the_events_capability_sits(
    personas, refserver, locations, dialect, confirmed
):
    refserver.control("POST", "capabilities", {"locations": {"events": locations}})
    body = _register(personas.acme_api, refserver)
    assert body["capabilities"]["events"]["dialect"] == dialect
    assert body["events_dialect"] == "auto"
    server = McpServer.objects.get(pk=body["id"])
    assert server.events_dialect == dialect
    assert server.events_dialect_confirmed is confirmed
    assert body["event_types"]  # both dialects list their event types


def test_50_a_server_without_the_capability_gets_no_events_call(personas, refserver):
    refserver.control("POST", "capabilities", {"locations": {"events": []}})
    body = _register(personas.acme_api, refserver)
    assert body["capabilities"]["events"] is None
    assert body["event_types"] == []
    assert McpServer.objects.get(pk=body["id"]).events_dialect == ""
    assert refserver.control("GET", "received?kinds=eventsList")["eventsList"] == []


def test_the_first_typed_error_settles_an_ambiguous_dialect_or_flips_it(personas, refserver):
    refserver.control("POST", "capabilities", {"locations": {"events": ["extensions", "toplevel"]}})
    server = McpServer.objects.get(pk=_register(personas.acme_api, refserver)["id"])
    assert (server.events_dialect, server.events_dialect_confirmed) == ("sep-3415", False)

    server_events_error_seen(server=server, code=-32013)  # a sketch-numbered quota error
    server.refresh_from_db()
    assert (server.events_dialect, server.events_dialect_confirmed) == ("chatgpt", True)
    flip = AuditEntry.objects.get(kind="server.dialect_changed", server_id=server.id)
    assert flip.detail == {"code": -32013, "from": "sep-3415", "to": "chatgpt"}

    # Settled: a SEP-numbered code now is unexpected, not another flip.
    server_events_error_seen(server=server, code=-32025)
    server.refresh_from_db()
    assert server.events_dialect == "chatgpt"
    assert AuditEntry.objects.filter(kind="server.dialect_changed").count() == 1

    # A later sync that sees the same ambiguous capability keeps what the
    # server's own answer settled.
    assert personas.acme_api.post(f"/servers/{server.id}/sync").status_code in (200, 202)
    server.refresh_from_db()
    assert server.events_dialect == "chatgpt"


def test_an_error_in_the_detected_dialect_confirms_it(personas, refserver):
    refserver.control("POST", "capabilities", {"locations": {"events": ["extensions", "toplevel"]}})
    server = McpServer.objects.get(pk=_register(personas.acme_api, refserver)["id"])
    server_events_error_seen(server=server, code=-32024)
    server.refresh_from_db()
    assert (server.events_dialect, server.events_dialect_confirmed) == ("sep-3415", True)
    assert not AuditEntry.objects.filter(kind="server.dialect_changed").exists()


def test_staff_override_the_detected_dialect_through_the_api(personas, refserver):
    refserver.control("POST", "capabilities", {"locations": {"events": ["extensions"]}})
    server_id = _register(personas.acme_api, refserver)["id"]
    api = personas.acme_api

    body = api.patch(f"/servers/{server_id}", {"events_dialect": "chatgpt"}).json()
    assert body["events_dialect"] == "chatgpt"
    assert body["capabilities"]["events"]["dialect"] == "chatgpt"
    entry = AuditEntry.objects.filter(kind="server.updated", server_id=server_id).latest("id")
    assert entry.detail["events_dialect"] == "chatgpt"

    back = api.patch(f"/servers/{server_id}", {"events_dialect": "auto"}).json()
    assert back["capabilities"]["events"]["dialect"] == "sep-3415"

    bad = api.patch(f"/servers/{server_id}", {"events_dialect": "sketch"})
    assert bad.status_code == 422 and "events_dialect" in bad.text


def test_the_server_page_shows_the_dialect_and_admins_set_it(personas, refserver):
    from django.test import Client

    refserver.control("POST", "capabilities", {"locations": {"events": ["toplevel"]}})
    server_id = _register(personas.acme_api, refserver)["id"]
    admin, auditor = Client(), Client()
    admin.force_login(personas.admin)
    auditor.force_login(personas.auditor)
    page = admin.get(f"/staff/servers/{server_id}/").content.decode()
    assert 'data-events-dialect="chatgpt"' in page and "capability at the top level" in page
    assert 'name="events_dialect"' in page
    assert (
        'name="events_dialect"' not in auditor.get(f"/staff/servers/{server_id}/").content.decode()
    )

    response = admin.post(f"/staff/servers/{server_id}/dialect", {"events_dialect": "sep-3415"})
    assert response.status_code == 302
    page = admin.get(f"/staff/servers/{server_id}/").content.decode()
    assert 'data-events-dialect="sep-3415"' in page and "set by staff" in page
    assert (
        auditor.post(
            f"/staff/servers/{server_id}/dialect", {"events_dialect": "chatgpt"}
        ).status_code
        == 403
    )
    assert McpServer.objects.get(pk=server_id).events_dialect == "sep-3415"
