"""Access requests end to end in real Chromium, against the real stack and
the reference MCP server: the user asks with a reason, staff approve in the
queue, the user consents. Both pages follow the other side live, without
reloading; the host hears each step as ``access_request.updated``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from consent.models import AccessRequest
from consent.services import host_policy_update
from outbox.services import host_endpoint_set
from switchboard.actors import Actor
from switchboard.services.servers import server_register
from switchboard.services.users import login_link_create
from tests.factories import SYSTEM, in_thread
from tests.hostapi import Host
from tests.subscriptions.support import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.processes, pytest.mark.sqlite]

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WIDTHS = {"desktop": 1280, "phone": 390}


def signed_in(browser, user, path: str) -> Page:
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(20_000)
    url, _ = in_thread(login_link_create, user=user, actor=Actor.system(), next_path=path)
    page.goto(url)
    expect(page).to_have_url(re.compile(re.escape(path) + "$"))
    settled(page)
    return page


def settled(page: Page) -> None:
    """Live, and marked: a reload would lose the mark."""
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")
    page.evaluate("() => { window.__notReloaded = true; }")


def not_reloaded(page: Page) -> bool:
    return page.evaluate("() => window.__notReloaded === true")


def screenshots(page: Page, name: str, *, element: str | None = None) -> None:
    """At both widths, as the browser tour names them (docs/screenshots/)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width_name, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        path = str(SCREENSHOTS / f"{name}-{width_name}.png")
        if element:
            page.locator(element).screenshot(path=path)
        else:
            page.screenshot(path=path, full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def received_ids(refserver) -> list[str]:
    return [m["messageId"] for m in refserver.received()["userMessages"]]


def test_a_user_asks_staff_approve_and_the_user_consents_all_live(
    live, tpersonas, refserver, browser, receiver
):
    _, receiver.secret = in_thread(
        host_endpoint_set, host=tpersonas.acme, url=receiver.url, actor=SYSTEM
    )
    ref = in_thread(
        server_register, host=tpersonas.acme, name="Ref", actor=SYSTEM, url=refserver.mcp_url
    )
    # Only listed servers may be used, and none is listed: Ref is not allowed.
    in_thread(host_policy_update, host=tpersonas.acme, actor=SYSTEM, server_list_mode="allow")
    host = Host(live, tpersonas.acme_key)
    host.send("m1")
    assert received_ids(refserver) == []

    user = signed_in(browser, tpersonas.alice, "/consent/servers/")
    staff = signed_in(browser, tpersonas.admin, "/staff/access-requests/")
    expect(staff.get_by_text("No request is waiting")).to_be_visible()

    # 1. The user asks, with a reason; an empty one is refused at the field.
    ask = user.locator("#my-access-requests")
    expect(ask.locator(f"#askable-{ref.id}")).to_contain_text("Ref")
    screenshots(user, "user-access-request-button", element="#my-access-requests")
    ask.get_by_role("link", name="Request access to Ref").click()
    expect(user.get_by_role("heading", name="Request access to Ref")).to_be_visible()
    user.get_by_role("button", name="Send request").click()
    expect(user.locator("#reason-error")).to_contain_text("Say why you need this server")
    expect(user.get_by_label("Why do you need it?")).to_have_attribute("aria-invalid", "true")
    screenshots(user, "user-access-request-detail")
    user.get_by_label("Why do you need it?").fill("I follow our CI builds with Ref")
    user.get_by_role("button", name="Send request").click()
    expect(user).to_have_url(re.compile(r"/consent/servers/$"))
    settled(user)
    request_id = in_thread(lambda: AccessRequest.objects.get(user=tpersonas.alice).id)
    mine = user.locator(f"#access-request-{request_id}")
    expect(mine).to_contain_text("Waiting for staff")

    # 2. The staff queue shows it live, without reloading.
    row = staff.locator(f"#access-row-{request_id}")
    expect(row).to_contain_text("I follow our CI builds with Ref")
    expect(row).to_contain_text("Alice")
    assert not_reloaded(staff)
    screenshots(staff, "staff-access-requests")

    # 3. Staff approve; the user's page shows the answer live.
    row.get_by_role("button", name=re.compile(r"^Approve")).click()
    expect(staff.get_by_text("No request is waiting")).to_be_visible()
    expect(mine).to_contain_text("Approved")
    decide = mine.get_by_role("link", name="Decide what Ref may do")
    expect(decide).to_be_visible()
    # The consent request it opened waits for the user's answer, also live.
    expect(user.locator("#my-pending li")).to_have_count(1)
    assert not_reloaded(user)

    # 4. The user consents; only now do messages reach the server.
    assert host.send("m2")["skipped"][0]["reason"] == "no_consent"
    decide.click()
    expect(user.get_by_role("heading", name="Ref asks for permission")).to_be_visible()
    user.get_by_role("button", name="Allow all").click()
    expect(user.locator("#decision")).to_contain_text("Allowed")
    host.send("m3")
    # Under load the server may answer after the host's budget; it still got it.
    wait_for(lambda: received_ids(refserver) == ["m3"], message="m3 at the server, m1 and m2 not")

    # The staff queue followed that too: the approved list links the request.
    staff.goto(f"{live.base_url}/staff/access-requests/?status=approved")
    settled(staff)
    expect(staff.locator(f"#access-row-{request_id}")).to_contain_text("Approved")

    # 5. The host heard each step, signed.
    updates = wait_for(
        lambda: (
            len(receiver.accepted("access_request.updated")) >= 2
            and receiver.accepted("access_request.updated")
        ),
        message="access_request.updated deliveries",
    )
    data = [u["data"] for u in updates]
    consent_request_id = in_thread(
        lambda: AccessRequest.objects.get(pk=request_id).consent_request_id
    )
    assert data == [
        {"request_id": request_id, "user": "alice", "server": ref.id, "status": "pending"},
        {
            "request_id": request_id,
            "user": "alice",
            "server": ref.id,
            "status": "approved",
            "consent_request_id": consent_request_id,
        },
    ]
    assert receiver.rejected == []
