"""Consent for an MCPE server in real Chromium: the patterns a host asks for
are shown in plain words, and what the user ticks is exactly what a
subscription's filter may cover."""

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from switchboard.services.servers import server_register
from tests.factories import SYSTEM, in_thread
from tests.hostapi import Host

pytestmark = [pytest.mark.browser, pytest.mark.processes]


def test_an_mcpe_consent_request_shows_patterns_in_plain_words(live, tpersonas, refserver, page):
    alerts = in_thread(
        server_register, host=tpersonas.acme, name="Alerts", actor=SYSTEM, url=refserver.mcpe_url
    )
    host = Host(live, tpersonas.acme_key)
    asked = host(
        "POST",
        "/consent/requests",
        {
            "user": "alice",
            "server": alerts.id,
            "scopes": ["events"],
            "event_types": ["alert.*", "github.issue.*"],
        },
    )
    page.goto(host.sign_in_link(urlsplit(asked["consent_url"]).path))
    expect(page.get_by_role("heading", name="Alerts asks for permission")).to_be_visible()
    scope = page.locator("fieldset.scope", has_text="Send you events from outside")
    expect(scope.get_by_text("all alert events")).to_be_visible()
    expect(scope.get_by_text("all github issue events")).to_be_visible()

    # Only the alerts: untick the GitHub pattern, allow.
    scope.locator("input[value='github.issue.*']").uncheck()
    scope.get_by_role("radio", name="Allow", exact=True).check()
    page.get_by_role("button", name="Save my choices").click()
    # The answer is saved once the page says so (htmx swaps #decision in).
    expect(
        page.get_by_role("heading", name=re.compile(r"^(Allowed|Partly allowed)$"))
    ).to_be_visible()
    assert host("GET", f"/consent/requests/{asked['id']}")["status"] in (
        "approved",
        "partially_approved",
    )

    covered = host(
        "POST",
        "/subscriptions",
        {"user": "alice", "server": alerts.id, "filter": {"event_types": ["alert.disk.*"]}},
    )
    uncovered = host(
        "POST",
        "/subscriptions",
        {"user": "alice", "server": alerts.id, "filter": {"event_types": ["github.issue.*"]}},
    )
    assert covered["status"] == "pending"
    assert uncovered["status"] == "pending_consent"
