"""Lifecycle evaluation against the reference MCP server over HTTP: its
default declarations, synced by the registry, and its tools."""

from __future__ import annotations

import time

import pytest

from switchboard.models import HookDeclaration
from switchboard.services.server_sync import server_sync
from switchboard.services.servers import server_register
from tests.factories import SYSTEM
from tests.hooks.conftest import approve

pytestmark = [pytest.mark.django_db, pytest.mark.processes]


def register(host, refserver, *, trust="untrusted", name="Ref", headers=None):
    server = server_register(
        host=host, name=name, url=refserver.mcp_url, actor=SYSTEM, trust=trust, headers=headers
    )
    assert server.status == "active", server.last_error_detail
    return server


def declared(server, **match):
    rows = HookDeclaration.objects.filter(server=server, removed_at__isnull=True, valid=True)
    return next(r.raw for r in rows if all(r.raw.get(k) == v for k, v in match.items()))


def lifecycle(api, session="s-1", **body):
    body.setdefault("user", "alice")
    response = api.post(f"/sessions/{session}/lifecycle", body)
    assert response.status_code == 200, response.content
    return response.json()


def commit(api, server=None, **extra):
    body = {
        "event": "post_tool_use",
        "tool_name": "Bash",
        "tool_input": {"command": "git commit -am wip"},
    }
    if server:
        body["servers"] = [server.id]
    return lifecycle(api, **body, **extra)


def test_the_suggestion_fires_after_approval_and_stops_when_muted(personas, refserver, settings):
    from hooks.services import hook_preference_set

    settings.HOOK_COOLDOWN = 0
    server = register(personas.acme, refserver)
    suggestion = declared(server, event="post_tool_use")
    assert commit(personas.acme_api, server)["injections"] == []
    approve(personas.alice, server, suggestion)
    (injection,) = commit(personas.acme_api)["injections"]
    assert injection["text"] == suggestion["context"]
    assert injection["priority"] == injection["effective_priority"] == "suggestion"
    hook_preference_set(
        user=personas.alice, server=server, hook_id=injection["hook_id"], muted=True, actor=SYSTEM
    )
    answer = commit(personas.acme_api)
    assert answer["injections"] == []
    assert answer["suppressed"][0]["reason"] == "muted"


def test_the_required_hook_of_an_untrusted_server_comes_back_important(personas, refserver):
    server = register(personas.acme, refserver, trust="untrusted")
    required = declared(server, priority="required")
    approve(personas.alice, server, required)
    answer = lifecycle(
        personas.acme_api,
        event="pre_tool_use",
        servers=[server.id],
        tool_name="Bash",
        tool_input={"command": "git push origin main"},
    )
    (injection,) = answer["injections"]
    assert (injection["priority"], injection["effective_priority"]) == ("required", "important")


def test_session_start_injects_the_context_tools_result(personas, refserver):
    server = register(personas.acme, refserver)
    brief = declared(server, event="session_start")
    approve(personas.alice, server, brief)
    answer = lifecycle(
        personas.acme_api, event="session_start", servers=[server.id], project_name="apollo"
    )
    (injection,) = answer["injections"]
    assert injection["source"] == "context_tool"
    assert injection["text"].startswith("Project brief for apollo:")
    (call,) = [c for c in refserver.received()["toolCalls"] if c["name"] == "project_brief"]
    assert call["arguments"] == {"project_name": "apollo"}


def test_a_context_tool_that_does_not_exist_is_reported(personas, refserver):
    hook = {"event": "session_start", "context_tool": "no_such_tool", "priority": "important"}
    refserver.control("POST", "capabilities", {"declarations": [hook]})
    server = register(personas.acme, refserver)
    approve(personas.alice, server, hook)
    answer = lifecycle(personas.acme_api, event="session_start", servers=[server.id])
    assert answer["injections"] == []
    (suppressed,) = answer["suppressed"]
    assert suppressed["reason"] == "context_tool_not_found"
    assert suppressed["detail"] == {"tool": "no_such_tool"}


def test_a_slow_context_tool_times_out_within_the_bound(personas, refserver, settings):
    settings.HOOK_CONTEXT_TOOL_TIMEOUT = 0.5
    server = register(personas.acme, refserver)
    approve(personas.alice, server, declared(server, event="session_start"))
    refserver.control("POST", "behaviour", {"method": "tools/call", "delay_ms": 5000})
    started = time.monotonic()
    answer = lifecycle(
        personas.acme_api, event="session_start", servers=[server.id], project_name="x"
    )
    assert time.monotonic() - started < 3
    assert answer["injections"] == []
    assert answer["suppressed"][0]["reason"] == "context_tool_timeout"


def test_a_failing_context_tool_is_reported(personas, refserver):
    server = register(personas.acme, refserver)
    approve(personas.alice, server, declared(server, event="session_start"))
    refserver.control("POST", "behaviour", {"method": "tools/call", "fail": "error"})
    answer = lifecycle(
        personas.acme_api, event="session_start", servers=[server.id], project_name="x"
    )
    (suppressed,) = answer["suppressed"]
    assert suppressed["reason"] == "context_tool_error"
    assert suppressed["detail"]["category"] == "mcp_error"


def test_changed_declarations_need_a_new_approval(personas, refserver, settings):
    settings.HOOK_COOLDOWN = 0
    server = register(personas.acme, refserver)
    suggestion = declared(server, event="post_tool_use")
    approve(personas.alice, server, suggestion)
    assert commit(personas.acme_api, server)["injections"]
    changed = dict(suggestion, context="Commit made. Write it down.")
    refserver.control("POST", "capabilities", {"declarations": [changed]})
    server_sync(server=server, actor=SYSTEM)
    answer = commit(personas.acme_api)
    assert answer["injections"] == []
    assert answer["suppressed"][0]["reason"] in {"no_consent", "not_approved"}


@pytest.mark.django_db(transaction=True)
def test_a_revoke_during_a_context_tool_call_wins(tpersonas, refserver, settings):
    import threading

    from django.db import connection

    from consent.services import grant_revoke

    settings.HOOK_CONTEXT_TOOL_TIMEOUT = 5
    server = register(tpersonas.acme, refserver)
    grant = approve(tpersonas.alice, server, declared(server, event="session_start"))
    refserver.control("POST", "behaviour", {"method": "tools/call", "delay_ms": 2000})

    def revoke_soon():
        # Revoke once the server has the tool call in hand (it answers 2 s later).
        deadline = time.monotonic() + 5
        while not refserver.received()["toolCalls"] and time.monotonic() < deadline:
            time.sleep(0.02)
        try:
            grant_revoke(grant=grant, actor=SYSTEM)
        finally:
            connection.close()

    revoker = threading.Thread(target=revoke_soon)
    revoker.start()
    answer = lifecycle(
        tpersonas.acme_api, event="session_start", servers=[server.id], project_name="x"
    )
    revoker.join()
    assert answer["injections"] == []
    assert answer["suppressed"][0]["reason"] == "no_consent"
