"""The server registry against the reference MCP server, a real process."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from consent.models import GrantStatus
from consent.services import grant_approve, grant_request
from switchboard.models import AuditEntry, McpServer
from tests.factories import SYSTEM
from tests.live import free_port


def _register(api, refserver, **extra):
    return api.post("/servers", {"name": "Ref", "url": refserver.mcp_url, **extra})


def test_registering_reads_capabilities_event_types_and_declarations(personas, refserver):
    response = _register(personas.acme_api, refserver, trust="trusted")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "active" and body["last_error"] is None
    assert body["capability_sources"] == {
        "events": "extensions",
        "conversation_events": "extensions",
        "hooks": "extensions",
    }
    assert body["conversation_events"] is True
    # events/list is paginated on the reference server: every page was read.
    names = {et["name"] for et in body["event_types"]}
    assert {"build.finished", "ticket.created", "alert.fired"} <= names
    assert all(et["delivery"] for et in body["event_types"])
    declarations = body["hook_declarations"]
    assert declarations and all(d["valid"] for d in declarations)
    assert all(d["hook_id"].startswith(body["id"]) for d in declarations)
    assert {"required"} <= {d["priority"] for d in declarations}
    assert any(d["context_tool"] for d in declarations)
    assert (
        personas.acme_api.get(f"/servers/{body['id']}").json()["event_types"] == body["event_types"]
    )


@pytest.mark.parametrize(
    ("locations", "expected"),
    [
        (["experimental"], "experimental"),
        (["toplevel"], "discover"),
        (["extensions", "experimental"], "extensions"),
    ],
)
def test_each_capability_location_is_read_in_order(personas, refserver, locations, expected):
    refserver.control("POST", "capabilities", {"locations": locations})
    body = _register(personas.acme_api, refserver).json()
    assert body["status"] == "active"
    assert set(body["capability_sources"].values()) == {expected}
    assert body["event_types"] and body["hook_declarations"]


def test_invalid_declarations_are_kept_flagged_and_never_valid(personas, refserver):
    refserver.control(
        "POST",
        "capabilities",
        {
            "declarations": [
                {"event": "post_tool_use", "context": "fine", "priority": "suggestion"},
                {"event": "post_tool_use", "context": "x", "priority": "loud"},
                {"context": "no event at all"},
            ]
        },
    )
    body = _register(personas.acme_api, refserver).json()
    by_validity = {d["valid"]: d for d in body["hook_declarations"]}
    assert len(body["hook_declarations"]) == 3
    invalid = [d for d in body["hook_declarations"] if not d["valid"]]
    assert len(invalid) == 2 and all(d["problems"] for d in invalid)
    assert by_validity[True]["problems"] == []


def test_a_refusing_server_is_unreachable_with_its_category(personas):
    port = free_port()  # nothing listens here
    started = time.monotonic()
    response = personas.acme_api.post(
        "/servers", {"name": "Down", "url": f"http://127.0.0.1:{port}/mcp"}
    )
    assert response.status_code == 201
    assert response.json()["status"] == "unreachable"
    assert response.json()["last_error"] == "connection_refused"
    assert time.monotonic() - started < 10
    server = McpServer.objects.get(pk=response.json()["id"])
    assert server.next_sync_at is not None  # retried later by beat
    assert AuditEntry.objects.filter(kind="server.unreachable", server_id=server.id).exists()


def test_a_hanging_server_is_unreachable_within_the_deadline(personas, settings):
    settings.SERVER_SYNC_DEADLINE = 2
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    accepted = []

    def accept_and_hold():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            accepted.append(conn)  # never answer

    threading.Thread(target=accept_and_hold, daemon=True).start()
    try:
        started = time.monotonic()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        response = personas.acme_api.post("/servers", {"name": "Hangs", "url": url})
        elapsed = time.monotonic() - started
    finally:
        listener.close()
        for conn in accepted:
            conn.close()
    assert response.json()["status"] == "unreachable"
    assert response.json()["last_error"] == "timeout"
    assert elapsed < 2 + 3  # the deadline plus slack


def test_bad_registrations_get_422_naming_the_field(personas):
    api = personas.acme_api
    assert api.post("/servers", {"name": "x"}).json()["error"]["field"] == "url"
    assert (
        api.post("/servers", {"url": "http://127.0.0.1:1/mcp"}).json()["error"]["field"] == "name"
    )
    bad_trust = api.post(
        "/servers", {"name": "x", "url": "http://127.0.0.1:1/mcp", "trust": "maybe"}
    )
    assert bad_trust.status_code == 422 and bad_trust.json()["error"]["field"] == "trust"
    bad_header = api.post(
        "/servers", {"name": "x", "url": "http://127.0.0.1:1/mcp", "headers": {"a b": "c"}}
    )
    assert bad_header.json()["error"]["field"] == "headers"


def test_private_targets_are_refused_unless_allowed(personas, settings):
    settings.ALLOW_PRIVATE_TARGETS = False
    response = personas.acme_api.post(
        "/servers", {"name": "Local", "url": "http://127.0.0.1:9/mcp"}
    )
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "url"
    assert not McpServer.objects.filter(name="Local").exists()


def test_a_host_managed_server_takes_declared_capabilities(personas):
    capabilities = {
        "conversationEvents": {"onUserMessage": True},
        "hooks": {
            "declarations": [{"event": "session_start", "context": "hi", "priority": "suggestion"}]
        },
    }
    body = personas.acme_api.post(
        "/servers", {"name": "Stdio", "capabilities": capabilities}
    ).json()
    assert body["status"] == "host_managed" and body["url"] == ""
    assert body["conversation_events"] is True
    assert len(body["hook_declarations"]) == 1 and body["hook_declarations"][0]["valid"]


def test_patch_and_delete(personas, refserver):
    api = personas.acme_api
    server_id = _register(api, refserver).json()["id"]
    patched = api.patch(
        f"/servers/{server_id}", {"priority": 5, "trust": "trusted", "name": "Renamed"}
    )
    assert patched.status_code == 200
    assert (patched.json()["priority"], patched.json()["trust"], patched.json()["name"]) == (
        5,
        "trusted",
        "Renamed",
    )
    assert (
        api.patch(f"/servers/{server_id}", {"priority": "high"}).json()["error"]["field"]
        == "priority"
    )
    server = McpServer.objects.get(pk=server_id)
    grant = grant_approve(
        grant=grant_request(user=personas.alice, server=server, scope="events", actor=SYSTEM),
        actor=SYSTEM,
    )
    assert api.delete(f"/servers/{server_id}").status_code == 204
    grant.refresh_from_db()
    assert grant.status == GrantStatus.REVOKED
    assert api.get(f"/servers/{server_id}").status_code == 404


def test_servers_of_another_host_are_404(personas, refserver):
    server_id = _register(personas.acme_api, refserver).json()["id"]
    bravo = personas.bravo_api
    assert bravo.get(f"/servers/{server_id}").status_code == 404
    assert bravo.patch(f"/servers/{server_id}", {"name": "x"}).status_code == 404
    assert bravo.delete(f"/servers/{server_id}").status_code == 404
    assert bravo.post(f"/servers/{server_id}/sync").status_code == 404
    assert bravo.get("/servers").json()["items"] == []


def test_a_resync_records_changed_declarations(personas, refserver):
    api = personas.acme_api
    body = _register(api, refserver).json()
    before = {d["hook_id"] for d in body["hook_declarations"]}
    refserver.control(
        "POST",
        "capabilities",
        {"declarations": [{"event": "session_end", "context": "bye", "priority": "suggestion"}]},
    )
    synced = api.post(f"/servers/{body['id']}/sync")  # the async view
    assert synced.status_code == 200
    after = {d["hook_id"] for d in synced.json()["hook_declarations"]}
    assert after and after.isdisjoint(before)
    change = AuditEntry.objects.filter(kind="server.changed", server_id=body["id"]).get()
    assert set(change.detail["hooks_removed"]) == before


def test_the_staff_page_shows_servers_and_escaped_declarations(personas, refserver, client):
    refserver.control(
        "POST",
        "capabilities",
        {
            "declarations": [
                {
                    "event": "post_tool_use",
                    "context": "<script>alert(1)</script>",
                    "priority": "important",
                }
            ]
        },
    )
    server_id = _register(personas.acme_api, refserver).json()["id"]
    client.force_login(personas.admin, backend="django.contrib.auth.backends.ModelBackend")
    listing = client.get("/staff/servers/").content.decode()
    assert "Ref" in listing and server_id in listing
    detail = client.get(f"/staff/servers/{server_id}/").content.decode()
    assert "build.finished" in detail
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in detail and "<script>alert(1)" not in detail
