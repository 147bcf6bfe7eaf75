"""The whole path: daphne, the Celery worker and beat, the reference MCP
server, and Chromium."""

from __future__ import annotations

import re
import time

import httpx
import pytest
from playwright.sync_api import expect

from hooks.models import RefreshKind, ThreadRefresh, ThreadSnapshot
from switchboard.actors import Actor
from switchboard.mcp import McpSyncClient, McpTarget
from switchboard.models import HookDeclaration
from switchboard.services.servers import server_register
from switchboard.services.users import login_link_create
from tests.factories import SYSTEM, in_thread
from tests.live import ARTIFACTS

pytestmark = [pytest.mark.processes]


def api(live, personas):
    return httpx.Client(
        base_url=f"{live.base_url}/api/v1",
        headers={"Authorization": f"Bearer {personas.acme_key}"},
        timeout=15,
    )


def wait_for(check, *, timeout=20.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_login_refreshes_every_server_of_the_thread_once_per_burst(live, tpersonas, refserver):
    from outbox.models import HostDelivery

    auth = server_register(
        host=tpersonas.acme,
        name="Auth",
        url=refserver.mcp_url,
        actor=SYSTEM,
        headers={"Authorization": "Bearer auth"},
    )
    repos = server_register(
        host=tpersonas.acme,
        name="Repos",
        url=refserver.mcp_url,
        actor=SYSTEM,
        headers={"Authorization": "Bearer repos"},
    )
    client = api(live, tpersonas)
    start = client.post(
        "/sessions/agent-1/lifecycle",
        json={
            "user": "alice",
            "event": "session_start",
            "thread_id": "thread-abc-123",
            "servers": [auth.id, repos.id],
        },
    )
    assert start.status_code == 200, start.text
    # The worker takes each server's first snapshot for the thread.
    wait_for(
        lambda: ThreadSnapshot.objects.filter(thread_id="thread-abc-123").count() == 2,
        what="baseline",
    )
    refserver.control("GET", "received?clear=1")

    output = (
        McpSyncClient(McpTarget(url=refserver.mcp_url, headers={"Authorization": "Bearer auth"}))
        .call_tool(name="login", arguments={"thread_id": "thread-abc-123"})
        .model_dump(mode="json", by_alias=True, exclude_none=True)
    )
    assert output["_meta"]["refreshThreadCapabilities"] == "thread-abc-123"
    refserver.control("GET", "received?clear=1")

    burst = [
        client.post(
            "/sessions/agent-1/lifecycle",
            json={
                "user": "alice",
                "event": "post_tool_use",
                "tool_name": "login",
                "tool_server": auth.id,
                "tool_output": output,
            },
        ).json()["refresh"]["status"]
        for _ in range(3)
    ]
    direct = client.post("/threads/thread-abc-123/refresh", json={"user": "alice"})
    assert burst == ["scheduled", "coalesced", "coalesced"]
    assert (direct.status_code, direct.json()["status"]) == (202, "coalesced")

    refresh = wait_for(
        lambda: ThreadRefresh.objects.filter(
            thread_id="thread-abc-123", kind=RefreshKind.REFRESH, status="completed"
        ).first(),
        what="the refresh",
    )
    assert refresh.signals == 4
    time.sleep(1)  # nothing else may follow
    received = refserver.received()
    for kind in ("toolsList", "resourcesList"):
        assert sorted(c["principal"] for c in received[kind]) == ["Bearer auth", "Bearer repos"]
        assert {c["threadId"] for c in received[kind]} == {"thread-abc-123"}
    (delivery,) = HostDelivery.objects.filter(
        host=tpersonas.acme, type="thread.capabilities_changed"
    )
    servers = delivery.body["data"]["servers"]
    assert {s["server"] for s in servers} == {auth.id, repos.id}
    assert all(s["tools_added"] == ["private_repos"] for s in servers)
    assert all(s["resources_added"] == ["refserver://private/repos"] for s in servers)
    assert (
        ThreadRefresh.objects.filter(thread_id="thread-abc-123", kind=RefreshKind.REFRESH).count()
        == 1
    )


@pytest.mark.browser
def test_a_user_approves_a_hook_and_sees_it_fire_live(live, tpersonas, refserver, page):
    server = in_thread(
        server_register, host=tpersonas.acme, name="Annal", url=refserver.mcp_url, actor=SYSTEM
    )
    suggestion = next(
        d
        for d in HookDeclaration.objects.filter(server=server, valid=True)
        if d.event == "post_tool_use"
    )
    client = api(live, tpersonas)
    request = client.post(
        "/consent/requests", json={"user": "alice", "server": server.id, "scopes": ["hooks"]}
    )
    assert request.status_code == 201, request.text
    consent_path = "/" + request.json()["consent_url"].split("/", 3)[3]
    url, _ = in_thread(
        login_link_create, user=tpersonas.alice, actor=Actor.system(), next_path=consent_path
    )

    page.goto(url)
    expect(page.get_by_role("heading", name="Annal asks for permission")).to_be_visible()
    page.locator(f'input[type=checkbox][value="{suggestion.hook_id}"]').check()
    page.get_by_label("Allow", exact=True).check()
    page.get_by_role("button", name="Save my choices").click()
    expect(page.locator("#decision")).to_contain_text("Allowed")

    page.goto(f"{live.base_url}/hooks/timeline/")
    expect(page.get_by_role("heading", name="Your lifecycle timeline")).to_be_visible()
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")

    answer = client.post(
        "/sessions/agent-7/lifecycle",
        json={
            "user": "alice",
            "event": "post_tool_use",
            "servers": [server.id],
            "tool_name": "Bash",
            "tool_input": {"command": "git commit -m 'ship it'"},
        },
    ).json()
    assert [i["hook_id"] for i in answer["injections"]] == [suggestion.hook_id]

    entry = page.locator(f"#timeline-u-{tpersonas.alice.id} li.lifecycle-entry").first
    expect(entry).to_contain_text("post_tool_use")
    expect(entry.locator(".firing")).to_contain_text("You just committed work")
    expect(entry.locator(".firing")).to_contain_text("Annal")
    page.screenshot(path=str(ARTIFACTS / "hooks-timeline-live.png"), full_page=True)

    # The server's page shows the hook approved and when it last fired.
    page.goto(f"{live.base_url}/hooks/servers/{server.id}/")
    row = page.locator(f'tr[data-hook="{suggestion.hook_id}"]')
    expect(row).to_contain_text("approved")
    expect(row).not_to_contain_text("never")
    row.get_by_role("button", name="Mute").click()
    expect(page.locator(f'tr[data-hook="{suggestion.hook_id}"]')).to_contain_text("muted")
    page.screenshot(path=str(ARTIFACTS / "hooks-server.png"), full_page=True)
    muted = client.post(
        "/sessions/agent-8/lifecycle",
        json={
            "user": "alice",
            "event": "post_tool_use",
            "servers": [server.id],
            "tool_name": "Bash",
            "tool_input": "git commit",
        },
    ).json()
    assert muted["injections"] == [] and muted["suppressed"][0]["reason"] == "muted"
    assert re.search(r"/hooks/servers/", page.url)
