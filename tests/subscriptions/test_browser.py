"""Real Chromium against the real stack: an event arrives live, then the
user revokes the subscription."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from subscriptions.models import Subscription
from switchboard.actors import Actor
from switchboard.services.servers import server_register
from switchboard.services.users import login_link_create
from tests.factories import in_thread
from tests.live import ARTIFACTS
from tests.subscriptions.support import SYSTEM, approve_events, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.processes]


def test_the_user_watches_an_event_arrive_live_then_revokes(live, tpersonas, refserver, page):
    server = server_register(
        host=tpersonas.acme, name="Reference CI", url=refserver.mcp_url, actor=SYSTEM
    )
    approve_events(tpersonas.alice, server, ["build.finished"])
    created = tpersonas.acme_api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": server.id,
            "event": "build.finished",
            "arguments": {"repo": "acme/app"},
        },
    ).json()
    sub = wait_for(
        lambda: Subscription.objects.filter(pk=created["id"], status="active").first(),
        message="active",
    )

    url, _ = in_thread(
        login_link_create,
        user=tpersonas.alice,
        actor=Actor.system(),
        next_path=f"/subscriptions/{sub.id}/",
    )
    page.goto(url)
    expect(page.get_by_role("heading", name=re.compile("build.finished"))).to_be_visible()
    expect(page.locator(f"#sub-row-{sub.id} [data-status='active']")).to_have_text("Active")
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")

    emitted = refserver.control(
        "POST",
        "emit",
        {
            "name": "build.finished",
            "data": {
                "repo": "acme/app",
                "status": "failure",
                "note": "<img src=x onerror=alert(1)>",
            },
        },
    )
    item = page.locator(f"#sub-events-{sub.id} li").first
    expect(item).to_contain_text(emitted["eventId"], timeout=15_000)
    expect(page.locator(f"#sub-last-{sub.id} time")).to_be_visible()
    item.locator("summary").click()
    expect(item.locator("pre.payload")).to_contain_text(
        "<img src=x onerror=alert(1)>"
    )  # shown as text
    assert page.locator(f"#sub-events-{sub.id} img").count() == 0
    page.screenshot(path=str(ARTIFACTS / "subscription-live.png"), full_page=True)

    page.get_by_role("button", name="Revoke").click()
    expect(page.locator(f"#sub-row-{sub.id} [data-status='revoked']")).to_have_text("Stopped")
    assert Subscription.objects.get(pk=sub.id).status == "revoked"
    wait_for(
        lambda: refserver.control("GET", "received?kinds=unsubscribe")["unsubscribe"],
        message="unsubscribed",
    )
