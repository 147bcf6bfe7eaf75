"""The rest of the staff navigation follows its state live, in real Chromium
against the real stack, in the pattern of ``test_live_pages``: a change
arrives without reloading, and one made while the live socket was down is
there after the reconnect."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_live_pages import (
    assert_not_reloaded,
    open_live,
    socket_down,
)
from tests.factories import in_thread
from tests.hostapi import Host
from tests.subscriptions.support import make_event_server

pytestmark = [pytest.mark.browser, pytest.mark.processes]


def test_the_staff_subscription_list_shows_new_subscriptions(live, tpersonas, page):
    host = Host(live, tpersonas.acme_key)
    server = in_thread(make_event_server, tpersonas.acme)
    open_live(page, tpersonas.admin, "/staff/subscriptions/")
    results = page.locator("#sub-results")
    expect(results).to_contain_text("No subscriptions")

    def subscribe(repo: str) -> None:
        body = {
            "user": "alice",
            "server": server.id,
            "event": "build.finished",
            "arguments": {"repo": repo},
        }
        host("POST", "/subscriptions", body)

    subscribe("acme/app")
    expect(results).to_contain_text("acme/app")
    with socket_down(page):
        subscribe("acme/web")
    expect(results).to_contain_text("acme/web")
    assert_not_reloaded(page)
