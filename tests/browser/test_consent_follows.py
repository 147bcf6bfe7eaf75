"""In Chromium, at 1280 px and at 390 px: the staff page's "as of" control shows
a user's consent as it stood before and after a revoke, and the user's
*Connection* part of each server card says whose account the server acts as,
and "Disconnect" turns it to the host's account, live. Screenshots go to
docs/screenshots/."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from switchboard.actors import Actor
from switchboard.models import McpServer
from switchboard.services.users import login_link_create
from tests.consent.support import allow_all, open_request
from tests.factories import in_thread
from tests.hostapi import Host

pytestmark = [pytest.mark.browser, pytest.mark.processes, pytest.mark.sqlite]

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WIDTHS = {"desktop": 1280, "phone": 390}
NO_SIDEWAYS_SCROLL = "() => document.scrollingElement.scrollWidth <= window.innerWidth"


def signed_in(browser: Browser, user) -> Page:
    page = browser.new_context().new_page()
    page.set_default_timeout(15_000)
    url, _ = in_thread(login_link_create, user=user, actor=Actor.system(), next_path="/")
    page.goto(url)
    return page


def at(page: Page, width: int, url: str) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(url)
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")


def field_value(moment: datetime) -> str:
    """What a person types into the datetime-local field (UTC, to the second)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")


def test_as_of_and_connections_at_desktop_and_phone_width(live, tpersonas, browser):
    host = Host(live, tpersonas.acme_key)
    created = host(
        "POST",
        "/servers",
        {"name": "Notes", "capabilities": {"conversationEvents": {"onUserMessage": True}}},
    )
    server = in_thread(McpServer.objects.get, pk=created["id"])
    host(
        "PUT",
        f"/users/alice/servers/{server.id}/credentials",
        {"headers": {"Authorization": "Bearer alice"}},
    )
    request = in_thread(lambda: allow_all(open_request(tpersonas, server, ["conversation:read"])))
    grant_id = in_thread(lambda: request.grants.get().id)
    allowed = datetime.now(UTC)
    time.sleep(2.1)  # the field is to the second: leave one between allowing and revoking
    host("DELETE", f"/grants/{grant_id}")
    # Allowed again, so the user's card has something to disconnect.
    in_thread(lambda: allow_all(open_request(tpersonas, server, ["conversation:read"])))
    revoked = datetime.now(UTC)

    staff = signed_in(browser, tpersonas.auditor)
    page_url = f"{live.base_url}/staff/consents/users/{tpersonas.alice.id}/"
    for name, width in WIDTHS.items():
        at(staff, width, page_url)
        staff.fill("#as-of-at", field_value(allowed + timedelta(seconds=1)))
        staff.get_by_role("button", name="Show").click()
        then = staff.locator(f'.as-of-grants tr[data-grant="{grant_id}"]')
        expect(then).to_have_attribute("data-status", "active")
        expect(staff.locator(".as-of-grants tr")).to_have_count(2)  # its header and one grant
        assert staff.evaluate(NO_SIDEWAYS_SCROLL), name
        staff.locator("#as-of").screenshot(path=str(SCREENSHOTS / f"staff-user-as-of-{name}.png"))
        staff.fill("#as-of-at", field_value(revoked + timedelta(seconds=1)))
        staff.get_by_role("button", name="Show").click()
        expect(then).to_have_attribute("data-status", "revoked")
        expect(staff.locator(".as-of-grants tbody tr")).to_have_count(2)  # and the new one
        # The browser's own field takes only a moment; a typed URL gets the page's message.
        staff.goto(page_url + "?at=last+tuesday")
        expect(staff.locator("#as-of-error")).to_contain_text("at: give a date and time")
    staff.context.close()

    user = signed_in(browser, tpersonas.alice)
    for name, width in WIDTHS.items():
        at(user, width, f"{live.base_url}/consent/servers/")
        part = user.locator(f'[data-connection="{server.id}"]')
        expect(part.locator("[data-acts-as]")).to_have_attribute("data-acts-as", "user")
        expect(part).to_contain_text("your own account")
        expect(part.locator("[data-calls]")).to_have_text("0")
        expect(
            part.get_by_role("button", name="Disconnect your account from Notes")
        ).to_be_visible()
        assert user.evaluate(NO_SIDEWAYS_SCROLL), name
        part.locator("xpath=ancestor::section[contains(@class,'server-card')]").screenshot(
            path=str(SCREENSHOTS / f"user-connections-{name}.png")
        )
    user.get_by_role("button", name="Disconnect your account from Notes").click()
    part = user.locator(f'[data-connection="{server.id}"]')
    expect(part.locator("[data-acts-as]")).to_have_attribute("data-acts-as", "host")
    expect(part).to_contain_text("Acme’s account")
    expect(part.get_by_role("button", name="Disconnect your account from Notes")).to_have_count(0)
    user.context.close()
