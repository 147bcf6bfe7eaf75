"""The consent page and "Authorized servers" in real Chromium, against the real
stack (daphne, Celery, Redis) and the reference MCP server as a real process."""

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from consent.models import ConsentRequest
from switchboard.services.servers import server_register
from tests.consent.support import allow_all
from tests.factories import SYSTEM, in_thread
from tests.hostapi import Host
from tests.live import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.processes]


def received_ids(refserver) -> list[str]:
    return [m["messageId"] for m in refserver.received()["userMessages"]]


def wait_live(page):
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")


def test_consent_given_in_the_browser_is_exactly_what_reaches_the_server(
    live, tpersonas, refserver, page
):
    ref = in_thread(
        server_register, host=tpersonas.acme, name="Ref", actor=SYSTEM, url=refserver.mcp_url
    )
    host = Host(live, tpersonas.acme_key)

    # 1. Without consent the server receives nothing.
    assert host.send("m1")["skipped"][0]["reason"] == "no_consent"
    assert received_ids(refserver) == []

    # 2. The host asks; the user arrives through a one-time sign-in link.
    asked = host(
        "POST",
        "/consent/requests",
        {
            "user": "alice",
            "server": ref.id,
            "scopes": ["conversation:read", "hooks"],
            "return_url": "https://chat.acme.test/back",
        },
    )
    page.goto(host.sign_in_link(urlsplit(asked["consent_url"]).path))
    expect(page.get_by_role("heading", name="Ref asks for permission")).to_be_visible()
    expect(
        page.get_by_text("Every message you send in a conversation is also sent to Ref")
    ).to_be_visible()
    expect(page.get_by_text("Ref will see Acme’s shared account")).to_have_count(2)
    expect(page.locator(".hook-required")).to_contain_text("Required:")

    # The preview follows what the user types (htmx, no custom script).
    page.get_by_label("Sample message").fill("Is green tea <b>ok</b>?")
    expect(page.locator("#preview")).to_contain_text('"content": "Is green tea <b>ok</b>?"')

    # 3. Decide with the keyboard only: allow reading messages, no hooks.
    read = page.locator("fieldset.scope", has_text="Read your messages")
    read.get_by_role("radio", name="Allow", exact=True).focus()
    page.keyboard.press("Space")
    hooks = page.locator("fieldset.scope", has_text="Add instructions")
    hooks.get_by_role("radio", name="Don’t allow").focus()
    page.keyboard.press("Space")
    page.get_by_role("radio", name="Until I take it back").check()
    page.screenshot(path=str(ARTIFACTS / "consent-page.png"), full_page=True)
    page.get_by_role("button", name="Save my choices").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#decision")).to_contain_text("Partly allowed")
    expect(page.get_by_role("link", name="Back to Acme")).to_have_attribute(
        "href", "https://chat.acme.test/back"
    )
    assert host("GET", f"/consent/requests/{asked['id']}")["status"] == "partially_approved"

    # 4. Now exactly the consented messages reach the server.
    answer = host.send("m2")
    assert answer["items"][0]["server"] == ref.id
    assert received_ids(refserver) == ["m2"]

    # 5. One click on "Authorized servers" takes it back, for the very next message.
    page.goto(f"{live.base_url}/consent/servers/")
    wait_live(page)
    card = page.locator(f"#card-{tpersonas.alice.id}-{ref.id}")
    expect(card.locator("tr", has_text="Read your messages")).to_contain_text("Allowed")
    page.screenshot(path=str(ARTIFACTS / "authorized-servers.png"), full_page=True)
    card.get_by_role("button", name=re.compile(r"^Revoke: Ref")).click()
    expect(card.locator("tr", has_text="Read your messages")).to_contain_text("Taken back")
    assert host.send("m3")["skipped"][0]["reason"] == "no_consent"
    assert received_ids(refserver) == ["m2"]

    # 6. Changes made elsewhere show up live, without reloading.
    again = host(
        "POST",
        "/consent/requests",
        {"user": "alice", "server": ref.id, "scopes": ["conversation:read"]},
    )
    expect(page.locator(f"#pending-item-{again['id']}")).to_be_visible()
    in_thread(lambda: allow_all(ConsentRequest.objects.get(pk=again["id"])))
    expect(page.locator(f"#pending-item-{again['id']}")).to_have_count(0)
    row = page.locator(f"#card-{tpersonas.alice.id}-{ref.id} tr", has_text="Read your messages")
    expect(row).to_contain_text("Allowed")
    grant_id = host("GET", f"/consent/requests/{again['id']}")["grants"][0]["id"]
    host("DELETE", f"/grants/{grant_id}")
    expect(row).to_contain_text("Taken back")


def test_what_was_injected_appears_live(live, tpersonas, refserver, page):
    ref = in_thread(
        server_register, host=tpersonas.acme, name="Ref", actor=SYSTEM, url=refserver.mcp_url
    )
    host = Host(live, tpersonas.acme_key)
    asked = host(
        "POST",
        "/consent/requests",
        {"user": "alice", "server": ref.id, "scopes": ["conversation:read"]},
    )
    in_thread(lambda: allow_all(ConsentRequest.objects.get(pk=asked["id"])))
    page.goto(host.sign_in_link("/consent/injections/"))
    expect(
        page.get_by_role("heading", name="What was injected into your conversations")
    ).to_be_visible()
    wait_live(page)
    host.send("m-live", "Any tea preferences?")
    row = page.locator("#injection-rows tr").first
    expect(row).to_contain_text("m-live")
    expect(row).to_contain_text("Answered")
    row.get_by_text("Show").click()
    expect(row.locator("pre")).to_contain_text("The user likes green tea.")
