"""Every page that shows state follows it live, in real Chromium against the
real stack: the state changes through the API (or as a server would change
it), the page shows it without reloading. Each test also drops the live
socket once and changes the state while it is down: after the reconnect the
page has caught up, nothing missed."""

from __future__ import annotations

import re
from contextlib import contextmanager

import httpx
import pytest
from playwright.sync_api import Page, expect

from consent.models import ConsentRequest
from switchboard.actors import Actor
from switchboard.models import McpServer
from switchboard.services.users import login_link_create
from tests.consent.support import allow_all
from tests.factories import in_thread
from tests.hostapi import Host
from tests.subscriptions.support import event_body, make_event_server, make_subscription, signed

pytestmark = [pytest.mark.browser, pytest.mark.processes]

# Records the page's websockets, and while __holdSockets is set sends new
# ones to a path that refuses them, so a test decides when a reconnect succeeds.
SOCKETS = """
(() => {
  const Real = window.WebSocket;
  window.__sockets = [];
  window.__holdSockets = false;
  function Recorded(url, protocols) {
    if (window.__holdSockets) url = url.replace("/ws/live/", "/ws/held/");
    const socket = protocols === undefined ? new Real(url) : new Real(url, protocols);
    window.__sockets.push(socket);
    return socket;
  }
  Recorded.prototype = Real.prototype;
  Object.assign(Recorded, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  window.WebSocket = Recorded;
})();
"""

CAPABILITIES = {
    "conversationEvents": {"onUserMessage": True},
    "tools": {},
}


def open_live(page: Page, user, path: str) -> None:
    page.add_init_script(SOCKETS)
    url, _ = login_link_create(user=user, actor=Actor.system(), next_path=path)
    page.goto(url)
    expect(page).to_have_url(re.compile(re.escape(path) + "$"))
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")
    page.evaluate("() => { window.__notReloaded = true; }")


def assert_not_reloaded(page: Page) -> None:
    assert page.evaluate("() => window.__notReloaded === true")


@contextmanager
def socket_down(page: Page):
    """Drop the live socket and keep it down while the block runs."""
    page.evaluate(
        "() => { window.__holdSockets = true;"
        " window.__sockets[window.__sockets.length - 1].close(4000); }"
    )
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'reconnecting'")
    expect(page.locator("#live-indicator")).to_contain_text("reconnecting")
    yield
    page.evaluate("() => { window.__holdSockets = false; }")
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'", timeout=30_000)


def test_the_staff_server_list_shows_new_servers(live, tpersonas, page):
    host = Host(live, tpersonas.acme_key)
    open_live(page, tpersonas.admin, "/staff/servers/")
    servers = page.locator("#server-list")
    host("POST", "/servers", {"name": "Calendar", "capabilities": CAPABILITIES})
    expect(servers).to_contain_text("Calendar")
    with socket_down(page):
        host("POST", "/servers", {"name": "Mailbox", "capabilities": CAPABILITIES})
    expect(servers).to_contain_text("Mailbox")
    assert_not_reloaded(page)


@pytest.mark.parametrize(
    ("who", "path"), [("alice", "/subscriptions/"), ("admin", "/staff/subscriptions/")]
)
def test_the_subscription_list_shows_new_subscriptions(live, tpersonas, page, who, path):
    """The user's list and the staff list of the host's subscriptions."""
    host = Host(live, tpersonas.acme_key)
    server = in_thread(make_event_server, tpersonas.acme)
    open_live(page, getattr(tpersonas, who), path)
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


def _ask(host: Host, server_id: str) -> str:
    asked = host(
        "POST",
        "/consent/requests",
        {"user": "alice", "server": server_id, "scopes": ["conversation:read"]},
    )
    return asked["id"]


def _allow(request_id: str) -> None:
    in_thread(lambda: allow_all(ConsentRequest.objects.get(pk=request_id)))


def test_the_home_page_follows_requests_and_consents(live, tpersonas, page):
    host = Host(live, tpersonas.acme_key)
    server = host("POST", "/servers", {"name": "Notes", "capabilities": CAPABILITIES})
    open_live(page, tpersonas.alice, "/")
    asking, grants = page.locator("#home-asking"), page.locator("#home-grants")
    expect(grants).to_contain_text("No server has asked for anything yet")

    request_id = _ask(host, server["id"])
    expect(asking).to_contain_text("Waiting for your decision")
    expect(asking).to_contain_text("Notes")
    _allow(request_id)
    expect(asking).not_to_contain_text("Waiting for your decision")
    expect(grants.locator("[data-status]").first).to_have_attribute("data-status", "active")

    grant_id = host("GET", f"/consent/requests/{request_id}")["grants"][0]["id"]
    with socket_down(page):
        host("DELETE", f"/grants/{grant_id}")
    expect(grants.locator("[data-status]").first).to_have_attribute("data-status", "revoked")
    assert_not_reloaded(page)


def test_waiting_for_your_answer_goes_once_decided_elsewhere(live, tpersonas, page):
    host = Host(live, tpersonas.acme_key)
    server = host("POST", "/servers", {"name": "Notes", "capabilities": CAPABILITIES})
    open_live(page, tpersonas.alice, "/consent/servers/")
    waiting = page.locator("#my-pending")
    expect(waiting).to_contain_text("Nothing is waiting for your answer")

    first = _ask(host, server["id"])
    expect(waiting.locator(f"#pending-item-{first}")).to_be_visible()
    expect(waiting).not_to_contain_text("Nothing is waiting for your answer")
    with socket_down(page):
        _allow(first)
    expect(waiting.locator(f"#pending-item-{first}")).to_have_count(0)
    expect(waiting).to_contain_text("Nothing is waiting for your answer")
    card = page.locator(f"#card-{tpersonas.alice.id}-{server['id']}")
    expect(card).not_to_contain_text("is waiting for your answer")
    expect(card.locator("[data-status]").first).to_have_attribute("data-status", "active")
    assert_not_reloaded(page)


def test_the_empty_state_gives_way_to_a_row_and_comes_back(live, tpersonas, page):
    host = Host(live, tpersonas.acme_key)
    server = host("POST", "/servers", {"name": "Notes", "capabilities": CAPABILITIES})
    open_live(page, tpersonas.admin, "/staff/consents/")
    pending = page.locator("#staff-pending")
    expect(pending).to_contain_text("No request is waiting")

    request_id = _ask(host, server["id"])
    expect(pending.locator(f"#pending-row-{request_id}")).to_be_visible()
    expect(pending).not_to_contain_text("No request is waiting")
    with socket_down(page):
        _allow(request_id)
    expect(pending.locator(f"#pending-row-{request_id}")).to_have_count(0)
    expect(pending).to_contain_text("No request is waiting")
    assert_not_reloaded(page)


def test_the_staff_audit_ledger_shows_new_entries(live, tpersonas, page):
    host = Host(live, tpersonas.acme_key)
    open_live(page, tpersonas.admin, "/staff/audit/")
    results = page.locator("#audit-results")
    host("PUT", "/users/dave", {"display_name": "Dave"})
    expect(results).to_contain_text("User dave created")
    with socket_down(page):
        host("PUT", "/users/erin", {"display_name": "Erin"})
    expect(results).to_contain_text("User erin created")
    assert_not_reloaded(page)


def test_the_subscription_page_follows_the_cursor(live, tpersonas, page):
    server = in_thread(make_event_server, tpersonas.acme)
    sub = in_thread(make_subscription, tpersonas.alice, server, remote_id="sub_remote")
    open_live(page, tpersonas.alice, f"/subscriptions/{sub.id}/")
    summary = page.locator("#sub-summary")
    expect(summary).to_contain_text("none (from now)")

    def deliver(event_id: str, cursor: str) -> None:
        headers, raw = signed(sub.secret, event_body(event_id, cursor=cursor), webhook_id=event_id)
        answer = httpx.post(
            f"{live.base_url}/webhooks/mcp/{sub.token}", headers=headers, content=raw
        )
        assert answer.status_code == 200, answer.text

    deliver("evt_1", "cursor-7")
    expect(summary).to_contain_text("cursor-7")
    with socket_down(page):
        deliver("evt_2", "cursor-8")
    expect(summary).to_contain_text("cursor-8")
    expect(page.locator(f"#sub-events-{sub.id}")).to_contain_text("evt_2")
    assert_not_reloaded(page)


def test_the_request_page_shows_a_decision_made_elsewhere(live, tpersonas, page):
    host = Host(live, tpersonas.acme_key)
    server = host("POST", "/servers", {"name": "Notes", "capabilities": CAPABILITIES})
    first = _ask(host, server["id"])
    open_live(page, tpersonas.alice, f"/consent/{first}/")
    decision = page.locator("#decision")
    expect(decision.get_by_role("button", name="Allow all")).to_be_visible()
    _allow(first)  # decided elsewhere: another tab, or staff on the user's behalf
    expect(decision).to_contain_text("Allowed")
    expect(decision.get_by_role("button", name="Allow all")).to_have_count(0)

    host("DELETE", f"/grants/{host('GET', f'/consent/requests/{first}')['grants'][0]['id']}")
    second = _ask(host, server["id"])
    page.goto(f"{live.base_url}/consent/{second}/")
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")
    page.evaluate("() => { window.__notReloaded = true; }")
    with socket_down(page):
        _allow(second)
    expect(decision).to_contain_text("Allowed")
    assert_not_reloaded(page)


def test_the_health_charts_follow_a_failing_delivery(live, tpersonas, page):
    from outbox.models import DeliveryAttempt, HostDelivery
    from outbox.services import host_endpoint_set, host_endpoint_test
    from tests.subscriptions.support import wait_for

    def settled_failures() -> int:
        """Once no delivery is still being retried: the failed attempts."""

        def read():
            if HostDelivery.objects.filter(status="pending").exists():
                return None
            return DeliveryAttempt.objects.filter(completed_at__isnull=False).count()

        found: list[int] = []
        wait_for(lambda: found.append(in_thread(read)) or found[-1] is not None, timeout=30)
        return found[-1]

    # A host endpoint nothing listens on: every attempt fails at once.
    in_thread(
        host_endpoint_set,
        host=tpersonas.acme,
        url="http://127.0.0.1:9/deliveries",
        actor=Actor.system(),
    )
    open_live(page, tpersonas.admin, "/staff/health/")
    figures = page.locator("#delivery-figures")
    expect(figures.locator("[data-failed='0']")).to_have_count(1)
    in_thread(host_endpoint_test, host=tpersonas.acme, actor=Actor.system())
    failed = settled_failures()
    assert failed >= 1
    expect(figures.locator(f"[data-failed='{failed}']")).to_have_count(1)
    bars = page.locator("#health svg[aria-label^='Delivery attempts per minute'] rect.chart-bad")
    expect(bars).not_to_have_count(0)
    with socket_down(page):
        in_thread(host_endpoint_test, host=tpersonas.acme, actor=Actor.system())
        more = settled_failures()  # failed while the page could not hear of it
    assert more > failed
    expect(figures.locator(f"[data-failed='{more}']")).to_have_count(1)
    assert_not_reloaded(page)


def test_the_host_endpoint_page_follows_its_deliveries(live, tpersonas, page):
    """The staff endpoint page: a new delivery's row in the log and the
    endpoint's last failure arrive live; a change of the endpoint and a
    delivery made while the socket was down are there after the reconnect."""
    from outbox.models import HostDelivery
    from outbox.services import host_endpoint_set, host_endpoint_test
    from tests.subscriptions.support import wait_for

    def pings():
        return HostDelivery.objects.filter(host=tpersonas.acme, type="ping")

    def newest_ping_tried() -> str:
        """The newest ping's id, once the sender has tried it."""
        found: list[str | None] = []

        def read() -> str | None:
            newest = pings().order_by("-seq").first()
            return newest.public_id if newest and newest.attempts else None

        wait_for(lambda: found.append(in_thread(read)) or found[-1] is not None, timeout=30)
        return str(found[-1])

    # An endpoint nothing listens on: every attempt fails at once.
    in_thread(
        host_endpoint_set,
        host=tpersonas.acme,
        url="http://127.0.0.1:9/deliveries",
        actor=Actor.system(),
    )
    in_thread(lambda: pings().delete())
    # Filtered: the live re-read keeps the page's filters.
    open_live(page, tpersonas.admin, "/staff/endpoint/?type=ping")
    log = page.locator("#delivery-log")
    last_failure = page.locator("#endpoint-health dt:has-text('Last failure') + dd")
    expect(last_failure).to_have_text("never")

    in_thread(host_endpoint_test, host=tpersonas.acme, actor=Actor.system())
    first = newest_ping_tried()
    expect(log.locator(f"#delivery-{first}")).to_contain_text("ping")
    expect(last_failure).not_to_have_text("never")

    with socket_down(page):
        in_thread(
            host_endpoint_set,
            host=tpersonas.acme,
            url="http://127.0.0.1:9/moved",
            actor=Actor.system(),
        )
        in_thread(host_endpoint_test, host=tpersonas.acme, actor=Actor.system())
        second = newest_ping_tried()
    assert second != first
    expect(page.locator("#endpoint-health")).to_contain_text("http://127.0.0.1:9/moved")
    expect(log.locator(f"#delivery-{second}")).to_contain_text("ping")
    assert_not_reloaded(page)


def go_live(page: Page, base_url: str, path: str) -> None:
    """Another page in the same signed-in tab, live and marked as not reloaded."""
    page.goto(base_url + path)
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")
    page.evaluate("() => { window.__notReloaded = true; }")


def test_the_staff_pages_follow_changes(live, tpersonas, page):
    """One staff tab through the staff navigation's pages that show state:
    each sees a change arrive live, and one made while its socket was down."""
    from switchboard.models import ApiKey
    from switchboard.retention import KINDS
    from switchboard.services.hosts import api_key_create, api_key_revoke
    from switchboard.services.retention import host_retention_set
    from switchboard.services.servers import server_update

    host = Host(live, tpersonas.acme_key)
    system = Actor.system()

    # The overview: how many users.
    open_live(page, tpersonas.admin, "/staff/")
    users_card = page.locator("#overview-counts .card", has_text="users").locator(".figure")
    before = int(users_card.inner_text())
    host("PUT", "/users/carol", {"display_name": "Carol"})
    expect(users_card).to_have_text(str(before + 1))
    with socket_down(page):
        host("PUT", "/users/chuck", {"display_name": "Chuck"})
    expect(users_card).to_have_text(str(before + 2))
    assert_not_reloaded(page)

    # Users: a new user's row.
    go_live(page, live.base_url, "/staff/users/")
    users = page.locator("#staff-users")
    host("PUT", "/users/dave", {"display_name": "Dave Live"})
    expect(users).to_contain_text("Dave Live")
    with socket_down(page):
        host("PUT", "/users/erin", {"display_name": "Erin Offline"})
    expect(users).to_contain_text("Erin Offline")
    assert_not_reloaded(page)

    # API keys: a new key, then its revocation.
    go_live(page, live.base_url, "/staff/keys/")
    keys = page.locator("#staff-keys")
    created, _ = in_thread(api_key_create, host=tpersonas.acme, name="ci-runner", actor=system)
    row = keys.locator(f"#key-{created.id}")
    expect(row).to_contain_text("ci-runner")
    expect(row).to_contain_text("in use")
    with socket_down(page):
        in_thread(lambda: api_key_revoke(key=ApiKey.objects.get(pk=created.id), actor=system))
    expect(keys.locator(f"#key-{created.id}")).to_contain_text("revoked")
    assert_not_reloaded(page)

    # A server's own page: its priority, then its trust.
    server = host("POST", "/servers", {"name": "Notes", "capabilities": CAPABILITIES})

    def update(**changes) -> None:
        in_thread(
            lambda: server_update(
                server=McpServer.objects.get(pk=server["id"]), actor=system, **changes
            )
        )

    go_live(page, live.base_url, f"/staff/servers/{server['id']}/")
    detail = page.locator("#server-detail")

    def fact(name: str):
        return detail.locator(f"xpath=.//dt[normalize-space()='{name}']/following-sibling::dd[1]")

    expect(fact("Trust")).to_have_text("Not trusted")
    update(priority=42)
    expect(fact("Priority")).to_have_text("42")
    with socket_down(page):
        update(trust="trusted")
    expect(fact("Trust")).to_have_text("Trusted")
    assert_not_reloaded(page)

    # The policy: how long content is kept, then a server's place in the order.
    go_live(page, live.base_url, "/staff/policy/")
    kind = next(iter(KINDS))
    in_thread(host_retention_set, host=tpersonas.acme, days={kind: 45}, actor=system)
    expect(page.locator(f"#retention-{kind}")).to_have_value("45")
    with socket_down(page):
        update(priority=7)
    expect(page.locator(f"#prio-{server['id']}")).to_have_value("7")
    assert_not_reloaded(page)

    # Agent sessions: each one that reports a lifecycle event.
    def lifecycle(session: str) -> None:
        body = {"user": "alice", "event": "session_start", "servers": [server["id"]]}
        host("POST", f"/sessions/{session}/lifecycle", body)

    go_live(page, live.base_url, "/staff/hooks/sessions/")
    sessions = page.locator("#hook-sessions")
    lifecycle("agent-live")
    expect(sessions).to_contain_text("agent-live")
    with socket_down(page):
        lifecycle("agent-offline")
    expect(sessions).to_contain_text("agent-offline", timeout=30_000)
    assert_not_reloaded(page)


def test_the_hooks_pages_follow_approval_and_firing(live, tpersonas, page):
    """The user's page of a server's hooks: the approval arrives live, and
    "last fired" after a firing made while the socket was down; the hooks
    overview counts the approved hook."""
    from tests.hooks.conftest import COMMIT_HOOK, approve, hooked_server

    host = Host(live, tpersonas.acme_key)
    server = in_thread(hooked_server, tpersonas.acme, [COMMIT_HOOK], name="Annal")
    open_live(page, tpersonas.alice, "/hooks/")
    overview = page.locator("#hooks-servers")
    expect(overview.locator("tr", has_text="Annal")).to_contain_text("0")
    in_thread(approve, tpersonas.alice, server, COMMIT_HOOK)
    expect(overview.locator("tr", has_text="Annal").locator("td").last).to_have_text("1")
    assert_not_reloaded(page)

    go_live(page, live.base_url, f"/hooks/servers/{server.id}/")
    about = page.locator("#hooks-server-about")
    row = page.locator("#hooks-server-hooks tr.hook-row")
    expect(about.locator("[data-status]")).to_have_attribute("data-status", "active")
    expect(row).to_contain_text("approved")
    expect(row.locator("td").nth(4)).to_have_text("never")
    with socket_down(page):
        fired = host(
            "POST",
            "/sessions/agent-7/lifecycle",
            {
                "user": "alice",
                "event": "post_tool_use",
                "servers": [server.id],
                "tool_name": "Bash",
                "tool_input": {"command": "git commit -m 'ship it'"},
            },
        )
        assert len(fired["injections"]) == 1
    expect(row.locator("td").nth(4)).not_to_have_text("never", timeout=30_000)
    assert_not_reloaded(page)
