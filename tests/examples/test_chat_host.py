"""The example chat host (examples/chat_host) holds one conversation end to
end against a live console and the reference MCP server: it registers the
server, sends the user to consent with a one-time link (the test plays the
user in a browser-less HTTP client), fans a message out for context, calls
a tool itself over MCP between lifecycle events, and receives signed
deliveries, refusing a forged one."""

from __future__ import annotations

import re
import threading
import time
from urllib.parse import urlsplit

import httpx
import pytest

from examples.chat_host import ChatHost, DeliveryEndpoint, SwitchboardApi
from examples.chat_host.__main__ import main
from hooks.models import LifecycleEvent
from switchboard.models import McpServer


def decide_as_the_user(link: str, *, choice: str = "allow") -> str:
    """Open the one-time link (it signs the user in and lands on the consent
    page) and press "Allow all"; the request's page path."""
    with httpx.Client(follow_redirects=True, timeout=20) as browser:
        page = browser.get(link)
        assert page.status_code == 200, page.text[:500]
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token, "the consent page has a form"
        path = urlsplit(str(page.url)).path
        assert path.startswith("/consent/req_"), page.url
        decided = browser.post(
            str(page.url.join("decide")),
            data={"all": choice, "remember": "30d", "csrfmiddlewaretoken": token.group(1)},
            headers={"Referer": str(page.url)},
        )
        assert decided.status_code == 200, decided.text[:500]
        return path


@pytest.fixture
def endpoint():
    endpoint = DeliveryEndpoint(port=0).start()
    yield endpoint
    endpoint.stop()


def test_the_example_host_holds_a_conversation_end_to_end(live, tpersonas, refserver, endpoint):
    said: list[str] = []
    api = SwitchboardApi(live.base_url, tpersonas.acme_key)
    host = ChatHost(
        api,
        user="alice",
        servers={"Reference": refserver.mcp_url},
        endpoint=endpoint,
        project="apollo",
        say=said.append,
    )
    try:
        host.setup()
        (server_id,) = host.servers
        assert McpServer.objects.get(pk=server_id).host_id == tpersonas.acme.id
        assert {"echo", "project_brief"} <= set(host.tools)

        # Consent: one request, one printed link; the user allows everything.
        (request,) = host.ask_consent()
        (link,) = [line.rsplit(" ", 1)[1] for line in said if "please decide" in line]
        assert link.startswith(f"{live.base_url}/login/")
        decide_as_the_user(link)
        (decided,) = host.wait_for_consent([request])
        assert decided["status"] == "approved"
        assert {g["scope"] for g in decided["grants"]} == {"conversation:read", "hooks"}
        # Switchboard told the host's endpoint too, signed.
        endpoint.wait_for("consent.updated", server=server_id, scope="hooks", status="active")

        # The session starts: the reference server's session_start hook calls
        # its project_brief tool through Switchboard, with the project's name.
        started = host.start()
        assert any("apollo" in injection["text"] for injection in started), started

        # A message is fanned out to the server the user allowed to read it.
        turn = host.send("What about the database?")
        assert "PostgreSQL 16" in turn.context and turn.skipped == []
        assert "PostgreSQL 16" in turn.reply

        # A tool the host calls itself, over MCP, between two lifecycle events.
        tooled = host.send("/echo hello from apollo")
        assert tooled.tool == "echo" and tooled.tool_result == "hello from apollo"
        assert "Tool echo answered: hello from apollo" in tooled.reply
        host.end()

        events = list(
            LifecycleEvent.objects.filter(session__session_id=host.session)
            .order_by("created_at", "id")
            .values_list("event", "tool_name")
        )
        assert events == [
            ("session_start", ""),
            ("pre_request", ""),
            ("post_request", ""),
            ("pre_request", ""),
            ("pre_tool_use", "echo"),
            ("post_tool_use", "echo"),
            ("post_request", ""),
            ("session_end", ""),
        ]
        # The reference server saw the host's own tool call and the message.
        received = refserver.received()
        assert "hello from apollo" in str(received)
        assert "What about the database?" in str(received)

        # A delivery signed with another secret is refused and not stored.
        stored = len(endpoint.deliveries)
        forged = httpx.post(
            endpoint.url,
            content=b'{"type": "ping", "timestamp": "2026-01-01T00:00:00Z", "data": {}}',
            headers={
                "webhook-id": "msg_forged",
                "webhook-timestamp": str(int(time.time())),
                "webhook-signature": "v1,bm90IGEgc2lnbmF0dXJlIG9mIHRoaXMgYm9keSBhdCBhbGwh",
            },
        )
        assert forged.status_code == 401
        assert len(endpoint.deliveries) == stored and endpoint.refused == 1
        # And a test delivery Switchboard signs is accepted.
        api.post("/host/endpoint/test")
        endpoint.wait_for("ping")
    finally:
        api.close()


def test_one_command_runs_a_conversation(live, tpersonas, refserver, capsys):
    """``python -m examples.chat_host`` as the README runs it, with scripted messages."""
    argv = [
        *("--console", live.base_url, "--key", tpersonas.acme_key, "--user", "bob"),
        *("--server", f"Reference={refserver.mcp_url}", "--endpoint-port", "0"),
        *("--message", "How do we deploy?", "--message", "/echo one command"),
    ]
    result: list[int] = []
    run = threading.Thread(target=lambda: result.append(main(argv)), daemon=True)
    run.start()
    printed = ""
    deadline = time.monotonic() + 120
    while "please decide" not in printed:
        assert run.is_alive() and time.monotonic() < deadline, printed
        time.sleep(0.2)
        printed += capsys.readouterr().out
    link = re.search(r"please decide what \S+ may do: (\S+)", printed).group(1)
    decide_as_the_user(link)
    run.join(timeout=120)
    printed += capsys.readouterr().out
    assert result == [0], printed
    assert "consent for " in printed and ": approved" in printed
    assert "host> You said: How do we deploy?" in printed
    assert "release pipeline" in printed  # the reference server's context
    assert "Tool echo answered: one command" in printed
