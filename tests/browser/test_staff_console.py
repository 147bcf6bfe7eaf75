"""An admin sets the host up from the pages alone, in real Chromium against
the real stack and the reference MCP server."""

import re

import httpx
import pytest
from playwright.sync_api import expect

from switchboard.actors import Actor
from switchboard.services.users import login_link_create

pytestmark = [pytest.mark.browser, pytest.mark.processes]


def test_an_admin_registers_a_server_creates_a_key_and_removes_the_server(
    live, tpersonas, refserver, page
):
    url, _ = login_link_create(
        user=tpersonas.admin, actor=Actor.system(), next_path="/staff/servers/"
    )
    page.goto(url)
    staff_nav = page.get_by_role("navigation", name="Staff sections")

    # Register the reference server, with a credential header.
    page.get_by_role("link", name="Register a server").click()
    page.get_by_label("Name people will see").fill("Reference")
    page.get_by_label("MCP endpoint URL").fill(refserver.mcp_url)
    page.get_by_label("Credentials").fill("X-Team-Key: s3cret")
    page.get_by_label("Trusted by this host").check()
    page.get_by_role("button", name="Register and sync").click()
    expect(page.get_by_role("heading", name="Reference", level=1)).to_be_visible()
    expect(page.get_by_text("is registered and synced")).to_be_visible()
    expect(page.locator("body")).to_contain_text("build.finished")
    expect(page.locator("body")).to_contain_text("post_tool_use")
    expect(page.locator("body")).not_to_contain_text("s3cret")

    # A key, shown once, that works against the API.
    staff_nav.get_by_role("link", name="API keys").click()
    page.get_by_label("Name (what uses this key)").fill("chat backend")
    page.get_by_role("button", name="Create a key").click()
    key = page.get_by_label("Key", exact=True).input_value()
    assert re.match(r"^swb_\w+$", key)
    answer = httpx.get(
        f"{live.base_url}/api/v1/users/alice", headers={"Authorization": f"Bearer {key}"}
    )
    assert answer.status_code == 200
    page.goto(f"{live.base_url}/staff/keys/")  # coming back: never shown again
    expect(page.get_by_label("Key", exact=True)).to_have_count(0)
    expect(page.locator("tbody")).to_contain_text("chat backend")

    # Remove the server: the confirmation says what goes, then it is gone.
    staff_nav.get_by_role("link", name="Servers").click()
    page.get_by_role("link", name="Reference").first.click()
    page.get_by_role("link", name="Remove Reference…").click()
    expect(page.get_by_role("heading", name="Remove Reference?")).to_be_visible()
    expect(page.locator(".goes")).to_contain_text("event types")
    page.get_by_role("button", name="Yes, remove Reference").click()
    expect(page).to_have_url(re.compile(r"/staff/servers/$"))
    expect(page.get_by_text("Reference is removed.")).to_be_visible()
    expect(page.locator("#server-list")).not_to_contain_text("Reference")
