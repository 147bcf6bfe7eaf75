"""The rest of the staff navigation follows its state live, in real Chromium
against the real stack, in the pattern of ``test_live_pages``: a change
arrives without reloading, and one made while the live socket was down is
there after the reconnect."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from switchboard.actors import Actor
from tests.browser.test_live_pages import (
    CAPABILITIES,
    _allow,
    _ask,
    assert_not_reloaded,
    open_live,
    socket_down,
)
from tests.factories import in_thread
from tests.hostapi import Host
from tests.subscriptions.support import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.processes]


def test_the_access_request_queue_follows_asks_and_answers(live, tpersonas, page):
    from consent.models import AccessRequest
    from consent.services import host_policy_update
    from consent.services.access_requests import access_request_deny

    host = Host(live, tpersonas.acme_key)
    notes = host("POST", "/servers", {"name": "Notes", "capabilities": CAPABILITIES})
    calendar = host("POST", "/servers", {"name": "Calendar", "capabilities": CAPABILITIES})
    # Only listed servers may be used, and none is listed: users must ask.
    in_thread(
        host_policy_update, host=tpersonas.acme, actor=Actor.system(), server_list_mode="allow"
    )
    open_live(page, tpersonas.admin, "/staff/access-requests/")
    queue = page.locator("#staff-access-requests")
    expect(queue).to_contain_text("No request is waiting")

    def ask(server_id: str, reason: str) -> str:
        body = {"user": "alice", "server": server_id, "reason": reason}
        return host("POST", "/access-requests", body)["id"]

    first = ask(notes["id"], "I keep my notes there")
    expect(queue.locator(f"#access-row-{first}")).to_contain_text("I keep my notes there")
    with socket_down(page):
        in_thread(
            lambda: access_request_deny(
                request=AccessRequest.objects.get(pk=first),
                note="Not this quarter",
                actor=Actor.system(),
            )
        )
        second = ask(calendar["id"], "I plan my week with it")
    expect(queue.locator(f"#access-row-{second}")).to_contain_text("I plan my week with it")
    expect(queue.locator(f"#access-row-{first}")).to_have_count(0)  # answered: not waiting
    assert_not_reloaded(page)


def test_the_organisation_grants_follow_new_and_ended_grants(live, tpersonas, page):
    host = Host(live, tpersonas.acme_key)
    server = host("POST", "/servers", {"name": "Notes", "capabilities": CAPABILITIES})
    open_live(page, tpersonas.admin, "/staff/org-grants/")
    grants = page.locator("#org-grants")
    expect(grants).to_contain_text("The organisation has allowed nothing for groups yet")

    body = {
        "server": server["id"],
        "scopes": ["conversation:read"],
        "groups": ["engineering"],
        "user_can_revoke": True,
    }
    org = host("POST", "/org-grants", body)
    row = grants.locator(f"#org-grant-{org['id']}")
    expect(row).to_contain_text("engineering")
    expect(row).to_have_attribute("data-status", "active")
    with socket_down(page):
        host("DELETE", f"/org-grants/{org['id']}")
    expect(grants.locator(f"#org-grant-{org['id']}")).to_have_attribute("data-status", "ended")
    assert_not_reloaded(page)


def test_the_injected_context_list_shows_new_injections(live, tpersonas, page):
    host = Host(live, tpersonas.acme_key)
    server = host("POST", "/servers", {"name": "Notes", "capabilities": CAPABILITIES})
    _allow(_ask(host, server["id"]))  # alice lets Notes read her conversation
    open_live(page, tpersonas.admin, "/staff/injections/")
    rows = page.locator("#staff-injection-rows")
    expect(page.locator("#injections")).to_contain_text("Nothing yet")

    def report(message_id: str) -> None:
        body = {
            "user": "alice",
            "server": server["id"],
            "message_id": message_id,
            "context": "The notes say: ship on Friday.",
            "latency_ms": 12,
        }
        host("POST", "/conversations/c1/injections", body)

    report("msg-live")
    expect(rows).to_contain_text("msg-live")
    with socket_down(page):
        report("msg-offline")
    expect(rows).to_contain_text("msg-offline")
    assert_not_reloaded(page)


def test_the_host_hook_timeline_shows_new_lifecycle_events(live, tpersonas, page):
    host = Host(live, tpersonas.acme_key)
    server = host("POST", "/servers", {"name": "Notes", "capabilities": CAPABILITIES})

    def lifecycle(session: str) -> None:
        body = {"user": "alice", "event": "session_start", "servers": [server["id"]]}
        host("POST", f"/sessions/{session}/lifecycle", body)

    open_live(page, tpersonas.admin, "/hooks/timeline/")
    timeline = page.locator("#timeline-host")
    lifecycle("agent-live")
    expect(timeline).to_contain_text("agent-live", timeout=30_000)
    with socket_down(page):
        lifecycle("agent-offline")
        # The timeline entry is written by the worker: wait until it is, so
        # it is one the page could not hear of.
        wait_for(lambda: in_thread(events_of, "agent-offline"), timeout=30)
    expect(timeline).to_contain_text("agent-offline", timeout=30_000)
    assert_not_reloaded(page)


def events_of(session: str) -> bool:
    from hooks.models import LifecycleEvent

    return LifecycleEvent.objects.filter(session__session_id=session).exists()


def test_the_sign_in_page_follows_staff_sessions(live, tpersonas, page):
    from switchboard.services.users import login_link_create
    from switchboard.sso.sessions import staff_sessions_end

    open_live(page, tpersonas.admin, "/staff/sign-in/")
    others = page.locator("#staff-sessions")
    expect(others).to_contain_text("No other staff are signed in")

    # The auditor signs in elsewhere (another browser) with a link.
    url, _ = in_thread(login_link_create, user=tpersonas.auditor, actor=Actor.system())
    assert httpx.get(url).status_code == 302
    expect(others).to_contain_text(tpersonas.auditor.email)
    with socket_down(page):
        in_thread(staff_sessions_end, actor=Actor.system(), reason="test", user=tpersonas.auditor)
    expect(others).to_contain_text("No other staff are signed in")
    expect(others).not_to_contain_text(tpersonas.auditor.email)
    assert_not_reloaded(page)


def test_the_staff_hooks_page_follows_servers_that_declare_hooks(live, tpersonas, page):
    from switchboard.models import McpServer
    from switchboard.services.servers import server_update
    from tests.hooks.conftest import COMMIT_HOOK

    open_live(page, tpersonas.admin, "/hooks/")
    overview = page.locator("#hooks-servers")
    expect(overview).to_contain_text("No server declares hooks yet")
    host = Host(live, tpersonas.acme_key)
    capabilities = {"hooks": {"declarations": [COMMIT_HOOK]}}
    server = host("POST", "/servers", {"name": "Annal", "capabilities": capabilities})
    row = overview.locator("tr", has_text="Annal")
    expect(row).to_contain_text("Not trusted")
    with socket_down(page):
        in_thread(
            lambda: server_update(
                server=McpServer.objects.get(pk=server["id"]), actor=Actor.system(), trust="trusted"
            )
        )
    expect(overview.locator("tr", has_text="Annal")).not_to_contain_text("Not trusted")
    expect(overview.locator("tr", has_text="Annal")).to_contain_text("Trusted")
    assert_not_reloaded(page)
