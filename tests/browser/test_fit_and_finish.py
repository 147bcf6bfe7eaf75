"""How pages sit at 1280 px and at 390 px (a phone), measured from the boxes
Chromium lays out: chart legends beside their swatches, an empty chart that
says so, and phone cards whose row labels never run over the next row."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from config.demo import demo_history_add
from switchboard.actors import Actor
from switchboard.models import McpServer
from switchboard.services.users import login_link_create
from tests.consent.support import allow_all, open_request
from tests.factories import in_thread
from tests.hostapi import Host
from tests.live import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.processes]

WIDTHS = {"desktop": 1280, "phone": 390}

# Each legend key: its swatch's box and the box of the words after it.
LEGEND_BOXES = """
() => [...document.querySelectorAll('.chart-legend li')].map(li => {
  const swatch = li.querySelector('svg').getBoundingClientRect();
  const range = document.createRange();
  range.selectNodeContents(li);
  range.setStartAfter(li.querySelector('svg'));
  const words = range.getBoundingClientRect();
  return {text: li.textContent.trim(), swatch: [swatch.left, swatch.top, swatch.right, swatch.bottom],
          words: [words.left, words.top, words.right, words.bottom]};
})
"""

# The "Whose account" cell of every grant row and the cell after it ("Since"),
# with the bottom of the cell's label (on a phone, the ::before box).
GRANT_CELLS = """
() => [...document.querySelectorAll('tr[id^="grant-"]')].map(tr => {
  const cell = tr.children[2], next = tr.children[3];
  const box = cell.getBoundingClientRect(), after = next.getBoundingClientRect();
  const label = getComputedStyle(cell, '::before');
  const labelBottom = label.content === 'none' ? null
    : box.top + parseFloat(getComputedStyle(cell).paddingTop) + parseFloat(label.height);
  return {head: cell.dataset.label, cell: [box.left, box.top, box.right, box.bottom],
          next: [after.left, after.top, after.right, after.bottom], labelBottom};
})
"""


# On a phone, every table cell's label (its ::before box) and whether it
# stays inside its cell: not cut off on the left, not running out below.
LABELS_OUTSIDE_THEIR_CELL = """
() => [...document.querySelectorAll('td[data-label]')].flatMap(cell => {
  const label = getComputedStyle(cell, '::before');
  if (label.content === 'none') return [];
  const box = cell.getBoundingClientRect(), style = getComputedStyle(cell);
  const left = box.left + parseFloat(style.paddingLeft) + parseFloat(label.marginLeft);
  const bottom = box.top + parseFloat(style.paddingTop) + parseFloat(label.height);
  return (left < box.left - 0.5 || bottom > box.bottom + 0.5 || left < 0)
    ? [cell.dataset.label + ': label at ' + [left, bottom] + ', cell ' + [box.left, box.bottom]] : [];
})
"""


def signed_in(browser: Browser, user, live) -> Page:
    page = browser.new_context().new_page()
    page.set_default_timeout(15_000)
    url, _ = in_thread(login_link_create, user=user, actor=Actor.system(), next_path="/")
    page.goto(url)
    return page


def at(page: Page, width: int, url: str) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(url)
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")


def test_charts_and_grant_cards_fit_at_desktop_and_phone_width(live, tpersonas, browser):
    created = Host(live, tpersonas.acme_key)(
        "POST",
        "/servers",
        {"name": "Builds", "capabilities": {"conversationEvents": {"onUserMessage": True}}},
    )
    server = in_thread(McpServer.objects.get, pk=created["id"])
    in_thread(lambda: allow_all(open_request(tpersonas, server, ["conversation:read"])))
    staff = signed_in(browser, tpersonas.admin, live)
    health = f"{live.base_url}/staff/health/"

    # Nothing happened yet: the time charts say so, with no invented scale.
    for name, width in WIDTHS.items():
        at(staff, width, health)
        empty = staff.locator("#health [data-chart-empty]")
        expect(empty).to_have_count(2)
        expect(empty.first).to_have_text("No delivery attempts in the last 30 minutes.")
        expect(staff.locator("#health svg[aria-label^='Delivery attempts']")).to_have_count(0)
        expect(staff.locator("#health text.chart-axis", has_text="1")).to_have_count(0)
        staff.screenshot(path=str(ARTIFACTS / f"fit-health-empty-{name}.png"), full_page=True)

    # With recent activity every chart draws, each legend key beside its swatch.
    in_thread(demo_history_add, host=tpersonas.acme, user=tpersonas.alice, server=server)
    for name, width in WIDTHS.items():
        at(staff, width, health)
        expect(staff.locator("#health [data-chart-empty]")).to_have_count(0)
        keys = staff.evaluate(LEGEND_BOXES)
        assert {key["text"] for key in keys} >= {"delivered", "failed", "timed out", "hooks"}
        for key in keys:
            s_left, s_top, s_right, s_bottom = key["swatch"]
            w_left, w_top, w_right, w_bottom = key["words"]
            assert (s_right - s_left, s_bottom - s_top) == (14, 14), (name, key)
            # On the swatch's line (centres within a few px), just right of it.
            assert abs((s_top + s_bottom) / 2 - (w_top + w_bottom) / 2) <= 4, (name, key)
            assert 0 <= w_left - s_right <= 12, (name, key)
        assert staff.evaluate(LABELS_OUTSIDE_THEIR_CELL) == [], name
        staff.screenshot(path=str(ARTIFACTS / f"fit-health-{name}.png"), full_page=True)
    staff.context.close()

    # The user's grant cards: "Whose account" stays within its own row.
    user = signed_in(browser, tpersonas.alice, live)
    for name, width in WIDTHS.items():
        at(user, width, f"{live.base_url}/consent/servers/")
        rows = user.evaluate(GRANT_CELLS)
        assert rows, "no grant row on the page"
        for row in rows:
            assert row["head"] == "Whose account"
            c_left, c_top, c_right, c_bottom = row["cell"]
            n_left, n_top, n_right, n_bottom = row["next"]
            if name == "desktop":  # a table row: side by side, no label
                assert row["labelBottom"] is None
                assert c_top == n_top and c_right <= n_left, row
            else:  # a card: one under the other, the label inside its cell
                assert c_bottom <= n_top + 0.5, row
                assert row["labelBottom"] <= c_bottom + 0.5, row
        assert user.evaluate(LABELS_OUTSIDE_THEIR_CELL) == [], name
        user.screenshot(path=str(ARTIFACTS / f"fit-grant-cards-{name}.png"), full_page=True)
    user.context.close()
