"""The browser tour: every page, as an end user, as staff and as an auditor, at
1280 px and at 390 px (a phone), against the real stack with data on the pages.

On every page: nothing scrolls sideways, nothing is logged to the console as
an error, nothing is fetched from another host, and axe-core finds no serious
or critical accessibility violation. Each page's screenshot is saved to
docs/screenshots/ (which the README shows), under a name that does not depend
on ids, so a new run overwrites the last one.

The pages are found, not listed: the main navigation, every sub-navigation
(the staff one included, so a new staff page is toured as soon as it is
linked), and the first link on those pages to each kind of detail page."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import axe_playwright_python
import httpx
import pytest

from consent.services import org_grant_create
from switchboard.actors import Actor
from switchboard.services.servers import server_register
from switchboard.services.users import login_link_create
from tests.consent.support import allow_all, declaring_server, open_request
from tests.factories import SYSTEM, in_thread
from tests.subscriptions.support import make_subscription

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
# axe-core as bundled by the axe-playwright-python package (a test dependency).
AXE_SCRIPT = Path(axe_playwright_python.__file__).parent / "axe.min.js"
WIDTHS = {"desktop": 1280, "phone": 390}

# Kinds of detail page, reached by the first link of that shape on a toured page.
DETAIL_PAGES = {
    "server": re.compile(r"^/staff/servers/(?!new/)[^/]+/$"),
    "subscription": re.compile(r"^/subscriptions/[^/]+/$"),
    "consent-request": re.compile(r"^/consent/(?!servers/|injections/)[^/]+/$"),
    "access-request": re.compile(r"^/consent/access/[^/]+/$"),
    "staff-consent-request": re.compile(r"^/staff/consents/requests/[^/]+/$"),
    "user": re.compile(r"^/staff/consents/users/[^/]+/$"),
    "user-hooks": re.compile(r"^/staff/hooks/users/[^/]+/$"),
    "hook-session": re.compile(r"^/staff/hooks/sessions/[^/]+/$"),
    "injection": re.compile(r"^/staff/injections/[^/]+/$"),
    "hooks-of-server": re.compile(r"^/hooks/servers/[^/]+/$"),
    "consent-record": re.compile(r"^/staff/consents/users/[^/]+/evidence$"),
    # Confirmation pages (admins only): looked at, never confirmed.
    "server-block": re.compile(r"^/staff/servers/[^/]+/block$"),
    "server-remove": re.compile(r"^/staff/servers/[^/]+/remove$"),
}
# An injection's own page is for auditors only; admins get no link to it.
SKIP_DETAILS: dict[str, set[str]] = {}
# Links in a navigation that are not pages to look at.
NOT_PAGES = re.compile(r"/logout|/export|/api/|/admin/")


@dataclass
class Visit:
    name: str
    path: str


@dataclass
class Findings:
    problems: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)


def screenshot_path(who: str, visit: Visit, width_name: str) -> Path:
    """user-home-phone.png, staff-audit-desktop.png, staff-server-detail-phone.png…"""
    name = visit.name.removeprefix("staff-") if who == "staff" else visit.name
    name = "overview" if name == "staff" else name
    return SCREENSHOTS / f"{who}-{name}-{width_name}.png"


def slug(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-") or "home"


@pytest.fixture
def tour_data(live, tpersonas, refserver):
    """What a host in use has: a synced server, a decided and an open consent
    request, a subscription, context injected into a conversation."""
    ref = in_thread(
        server_register,
        host=tpersonas.acme,
        name="Reference events server",
        url=refserver.mcp_url,
        actor=SYSTEM,
        trust="trusted",
    )
    asked = in_thread(open_request, tpersonas, ref, ["conversation:read"])
    in_thread(allow_all, asked)
    in_thread(open_request, tpersonas, ref, ["hooks", "events"], event_types=["build.finished"])
    in_thread(make_subscription, tpersonas.alice, ref, event="build.finished")
    with httpx.Client(
        base_url=f"{live.base_url}/api/v1",
        headers={"Authorization": f"Bearer {tpersonas.acme_key}"},
        timeout=15,
    ) as api:
        answer = api.post(
            "/conversations/tour-thread/messages",
            json={"user": "alice", "message_id": "tour-1", "content": "Any tea preferences?"},
        )
        assert answer.status_code == 200, answer.text
        # An organisation grant for alice's group, on a second server: the
        # staff page lists it and alice's page shows it as the organisation's.
        notes = in_thread(declaring_server, tpersonas.acme, name="Team notes")
        assert api.put("/users/alice", json={"groups": ["engineering"]}).status_code == 200
        in_thread(
            org_grant_create,
            host=tpersonas.acme,
            server=notes,
            scopes=["conversation:read", "hooks"],
            groups=["engineering", "support"],
            user_can_revoke=False,
            actor=Actor.for_user(tpersonas.admin),
            staff=tpersonas.admin,
        )
        # A server the policy denies: the user may ask for it (the "Request
        # access" form), and another user did (a row in the staff queue).
        unlisted = in_thread(
            server_register,
            host=tpersonas.acme,
            name="Unlisted server",
            actor=SYSTEM,
            capabilities={"conversationEvents": {"onUserMessage": True}},
        )
        policy = {"server_list_mode": "deny", "listed_server_ids": [unlisted.id]}
        assert api.put("/policy", json=policy).status_code == 200
        answer = api.post(
            "/access-requests",
            json={"user": "bob", "server": unlisted.id, "reason": "For the release notes"},
        )
        assert answer.status_code == 201, answer.text
    return tpersonas


def watch(page, base_url: str, findings: Findings) -> None:
    origin = urlsplit(base_url).netloc

    def on_console(message):
        if message.type == "error":
            findings.console.append(f"{page.url}: {message.text}")

    def on_request(request):
        parts = urlsplit(request.url)
        if parts.scheme in ("http", "https", "ws", "wss") and parts.netloc != origin:
            findings.foreign.append(f"{page.url} -> {request.url}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: findings.console.append(f"{page.url}: {error}"))
    page.on("request", on_request)
    page.on(
        "response",
        lambda r: (
            r.status >= 400 and findings.console.append(f"{page.url}: {r.url} answered {r.status}")
        ),
    )
    page.on("websocket", lambda ws: on_request(type("R", (), {"url": ws.url})()))


def links(page, base_url: str) -> tuple[list[str], list[str]]:
    """Same-site paths in navigations, and every same-site path on the page."""
    hrefs = page.eval_on_selector_all(
        "a[href]",
        "els => els.map(a => [a.href, !!a.closest('nav')])",
    )
    origin = urlsplit(base_url).netloc
    nav, anywhere = [], []
    for href, in_nav in hrefs:
        parts = urlsplit(href)
        if parts.netloc != origin or NOT_PAGES.search(parts.path):
            continue
        anywhere.append(parts.path)
        if in_nav:
            nav.append(parts.path)
    return nav, anywhere


def check_page(page, visit: Visit, who: str, findings: Findings, base_url: str) -> None:
    for width_name, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        response = page.goto(base_url + visit.path)
        where = f"{who} {visit.path} at {width}px"
        if response is None or response.status != 200:
            findings.problems.append(f"{where}: HTTP {response and response.status}")
            continue
        page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")
        overflow = page.evaluate("() => [document.scrollingElement.scrollWidth, window.innerWidth]")
        if overflow[0] > overflow[1]:
            wide = page.evaluate(
                """() => {
                    const over = e => e.getBoundingClientRect().right > window.innerWidth + 1;
                    return [...document.querySelectorAll('body *')]
                        .filter(e => over(e) && ![...e.children].some(over))
                        .slice(0, 4).map(e => e.outerHTML.slice(0, 80));
                }"""
            )
            findings.problems.append(f"{where}: {overflow[0]}px wide ({wide})")
        results = page.evaluate(
            """async () => (await axe.run(document, {resultTypes: ['violations']}))
                .violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
                .map(v => v.id + ' (' + v.impact + '): ' +
                     v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '))"""
        )
        findings.problems.extend(f"{where}: axe {r}" for r in results)
        if who != "auditor":
            page.screenshot(path=str(screenshot_path(who, visit, width_name)), full_page=True)


def tour(page, base_url: str, who: str, findings: Findings) -> list[Visit]:
    """Walk breadth-first from the home page through every navigation link,
    and one link to each kind of detail page."""
    queue = [Visit("home", "/")]
    seen_paths = {"/"}
    seen_details: set[str] = set(SKIP_DETAILS.get(who, ()))
    visited: list[Visit] = []
    while queue:
        visit = queue.pop(0)
        check_page(page, visit, who, findings, base_url)
        visited.append(visit)
        nav, anywhere = links(page, base_url)
        for path in nav:
            if path not in seen_paths and not any(p.match(path) for p in DETAIL_PAGES.values()):
                seen_paths.add(path)
                queue.append(Visit(slug(path), path))
        for path in anywhere:
            for kind, pattern in DETAIL_PAGES.items():
                if kind not in seen_details and path not in seen_paths and pattern.match(path):
                    seen_details.add(kind)
                    seen_paths.add(path)
                    queue.append(Visit(f"{kind}-detail", path))
    return visited


PERSONAS = {
    "user": "alice",
    "staff": "admin",
    "auditor": "auditor",
}


@pytest.mark.parametrize("who", list(PERSONAS))
def test_tour_every_page_at_desktop_and_phone_width(tour_data, live, browser, who):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    person = getattr(tour_data, PERSONAS[who])
    url, _ = in_thread(login_link_create, user=person, actor=Actor.system(), next_path="/")
    context = browser.new_context()
    context.add_init_script(path=str(AXE_SCRIPT))
    page = context.new_page()
    page.set_default_timeout(15_000)
    findings = Findings()
    watch(page, live.base_url, findings)
    try:
        page.goto(url)
        visited = tour(page, live.base_url, who, findings)
    finally:
        context.close()

    names = {v.name for v in visited}
    if who == "user":
        expected = {"home", "activity", "consent-servers", "consent-request-detail"}
        expected |= {"subscription-detail", "hooks-of-server-detail", "access-request-detail"}
    else:
        expected = {"staff", "staff-servers", "staff-users", "staff-audit", "server-detail"}
        expected |= {"user-detail", "subscription-detail", "staff-consent-request-detail"}
        expected |= {"consent-record-detail", "staff-org-grants", "staff-access-requests"}
        if who == "staff":
            expected |= {"server-block-detail", "server-remove-detail"}
    problems = findings.problems + findings.console + findings.foreign
    assert not problems, "\n".join(problems)
    assert expected <= names, f"the tour missed {expected - names} (saw {sorted(names)})"
