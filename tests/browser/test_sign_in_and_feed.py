"""Real Chromium against the real stack (daphne, Redis channel layer)."""

import re

import pytest
from playwright.sync_api import expect

from switchboard.actors import Actor
from switchboard.services.audit import audit_record
from switchboard.services.users import login_link_create
from tests.factories import in_thread
from tests.live import ARTIFACTS

pytestmark = pytest.mark.browser


def test_a_user_signs_in_by_link_and_watches_the_feed_update_live(live, tpersonas, page):
    url, _ = login_link_create(user=tpersonas.alice, actor=Actor.system(), next_path="/activity/")
    page.goto(url)
    expect(page).to_have_url(re.compile(r"/activity/$"))
    expect(page.get_by_role("heading", name="Activity")).to_be_visible()
    expect(page.get_by_text("Alice signed in")).to_be_visible()
    # Wait until the websocket is up before recording, as a user would be looking already.
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")

    in_thread(
        audit_record,
        host_id=tpersonas.acme.id,
        kind="test.live",
        actor=Actor.system("a worker"),
        user=tpersonas.alice,
        summary="A server asked to <b>see</b> your messages",
    )

    entry = page.locator("#activity-entries li").first
    expect(entry).to_contain_text(
        "A server asked to <b>see</b> your messages"
    )  # escaped, shown as text
    assert page.locator("#activity-entries b").count() == 0
    page.screenshot(path=str(ARTIFACTS / "activity-live.png"), full_page=True)


def test_a_used_link_shows_a_clear_page(live, tpersonas, page):
    url, _ = login_link_create(user=tpersonas.bob, actor=Actor.system())
    page.goto(url)
    expect(page.get_by_role("heading", name="Hello, Bob")).to_be_visible()
    page.context.clear_cookies()
    page.goto(url)
    expect(page.get_by_role("heading", name="This sign-in link cannot be used")).to_be_visible()
    expect(page.get_by_text("already been used")).to_be_visible()


def test_staff_see_the_overview_and_the_audit_filters(live, tpersonas, page):
    url, _ = login_link_create(user=tpersonas.admin, actor=Actor.system())
    page.goto(url)
    expect(page.get_by_role("heading", name="Acme")).to_be_visible()
    page.get_by_role("link", name="Audit ledger").first.click()
    page.get_by_label("Kind").fill("user.created")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("#audit-results")).to_contain_text("User bob created")
    expect(page.locator("#audit-results")).not_to_contain_text("signed in")
    page.screenshot(path=str(ARTIFACTS / "staff-audit.png"), full_page=True)
