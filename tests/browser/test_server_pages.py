"""Staff look at the registry in Chromium and see a server change live."""

import pytest
from playwright.sync_api import expect

from switchboard.actors import Actor
from switchboard.models import McpServer
from switchboard.services.server_sync import server_sync
from switchboard.services.servers import server_register
from switchboard.services.users import login_link_create
from tests.factories import SYSTEM, in_thread
from tests.live import ARTIFACTS

pytestmark = pytest.mark.browser


def test_staff_browse_servers_and_watch_a_status_change_live(live, tpersonas, refserver, page):
    server = server_register(
        host=tpersonas.acme, name="Reference", url=refserver.mcp_url, actor=SYSTEM
    )
    url, _ = login_link_create(
        user=tpersonas.admin, actor=Actor.system(), next_path="/staff/servers/"
    )
    page.goto(url)
    row = page.locator(f"#server-{server.id}")
    expect(row).to_contain_text("Reference")
    expect(row).to_contain_text("Active")
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")

    # The server goes away; a re-sync marks it unreachable and the row updates without a reload.
    McpServer.objects.filter(pk=server.pk).update(url="http://127.0.0.1:9/mcp")
    in_thread(server_sync, server=McpServer.objects.get(pk=server.pk), actor=SYSTEM)
    expect(row).to_contain_text("Unreachable")
    expect(row).to_contain_text("connection_refused")

    McpServer.objects.filter(pk=server.pk).update(url=refserver.mcp_url)
    in_thread(server_sync, server=McpServer.objects.get(pk=server.pk), actor=SYSTEM)
    expect(row).to_contain_text("Active")
    page.screenshot(path=str(ARTIFACTS / "staff-servers.png"), full_page=True)

    row.get_by_role("link", name="Reference").click()
    expect(page.get_by_role("heading", name="Hook declarations")).to_be_visible()
    expect(page.locator("body")).to_contain_text("build.finished")
    expect(page.locator("body")).to_contain_text("git commit")
    page.screenshot(path=str(ARTIFACTS / "staff-server-detail.png"), full_page=True)
