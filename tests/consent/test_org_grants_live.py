"""Organisation grants against the reference MCP server, a real process over
HTTP: a member's message reaches it with no prompt, a non-member's does not,
and leaving the group, ending the grant, the policy and the kill switch each
stop the very next message; ending it stops hooks and events too."""

from __future__ import annotations

import uuid

import pytest

from consent.services import host_policy_update
from subscriptions.models import SubscriptionStatus, UnsubscribeState
from subscriptions.services import subscription_unsubscribe
from subscriptions.services.refresh import subscription_refresh
from switchboard.services.server_block import server_block
from switchboard.services.servers import server_register
from switchboard.services.users import user_upsert
from tests.consent.enforce_support import (
    SLOW_MS,
    _message,
    _messages_received,
    while_session_opens,
)
from tests.factories import SYSTEM
from tests.subscriptions.support import make_subscription, wait_for

pytestmark = pytest.mark.processes


@pytest.fixture
def ref(personas, refserver):
    server = server_register(host=personas.acme, name="Ref", actor=SYSTEM, url=refserver.mcp_url)
    assert server.status == "active" and server.conversation_events, server.last_error_detail
    return server


def in_groups(personas, external_id, groups):
    answer = personas.acme_api.put(f"/users/{external_id}", {"groups": groups})
    assert answer.status_code in (200, 201), answer.json()


def allow(personas, server, groups):
    body = {
        "server": server.id,
        "scopes": ["conversation:read"],
        "groups": groups,
        "user_can_revoke": False,
    }
    answer = personas.acme_api.post("/org-grants", body)
    assert answer.status_code == 201, answer.json()
    return answer.json()


def send(personas, user, message_id):
    body = {"user": user, "message_id": message_id, "content": "What about the database?"}
    answer = personas.acme_api.post("/conversations/c1/messages", body)
    assert answer.status_code == 200, answer.json()
    return answer.json()


def received(refserver):
    return [m["messageId"] for m in refserver.received()["userMessages"]]


@pytest.mark.sqlite
def test_a_members_message_reaches_the_server_and_leaving_the_group_stops_the_next(
    personas, refserver, ref
):
    in_groups(personas, "alice", ["eng"])
    in_groups(personas, "bob", ["sales"])
    allow(personas, ref, ["eng"])

    reached = send(personas, "alice", "alice-1")
    assert [i["server"] for i in reached["items"]] == [ref.id] and reached["skipped"] == []
    skipped = send(personas, "bob", "bob-1")
    assert skipped["skipped"] == [{"server": ref.id, "reason": "no_consent", "detail": None}]

    in_groups(personas, "alice", ["sales"])
    after = send(personas, "alice", "alice-2")
    assert after["skipped"][0]["reason"] == "no_consent"
    assert received(refserver) == ["alice-1"]


@pytest.mark.sqlite
def test_ending_it_the_policy_and_the_kill_switch_each_stop_the_next_message(
    personas, refserver, ref
):
    in_groups(personas, "alice", ["eng"])
    org = allow(personas, ref, ["*"])
    send(personas, "alice", "m1")
    personas.acme_api.delete(f"/org-grants/{org['id']}")
    send(personas, "alice", "m2")

    allow(personas, ref, ["eng"])
    send(personas, "alice", "m3")
    host_policy_update(
        host=personas.acme, actor=SYSTEM, server_list_mode="deny", listed_server_ids=[ref.id]
    )
    assert send(personas, "alice", "m4")["items"] == []
    host_policy_update(host=personas.acme, actor=SYSTEM, server_list_mode="off")

    again = personas.acme_api.get("/org-grants").json()["items"][0]
    assert again["status"] == "suspended"  # the policy's block held it
    assert personas.acme_api.post(f"/org-grants/{again['id']}/approve").status_code == 200
    send(personas, "alice", "m5")
    server_block(server=ref, actor=SYSTEM)
    assert send(personas, "alice", "m6")["items"] == []
    assert received(refserver) == ["m1", "m3", "m5"]


def test_leaving_the_group_while_the_session_opens_sends_nothing(tpersonas, refserver):
    """The outbound check (``consent.enforce``) reads membership too: a
    member taken out of the group between the plan and the send gets
    nothing sent. (Committed personas: the group change commits on a
    connection of its own, as another request's would.)"""
    ref = server_register(host=tpersonas.acme, name="Ref", actor=SYSTEM, url=refserver.mcp_url)
    in_groups(tpersonas, "alice", ["eng"])
    allow(tpersonas, ref, ["eng"])
    host_policy_update(host=tpersonas.acme, actor=SYSTEM, conversation_budget_ms=4 * SLOW_MS)

    def leave():
        user_upsert(host=tpersonas.acme, external_id="alice", actor=SYSTEM, groups=[])

    with while_session_opens(refserver, leave):
        answer = _message(tpersonas, "left")
    assert answer.status_code == 200, answer.content
    assert _messages_received(refserver) == []
    assert answer.json()["skipped"] == [{"server": ref.id, "reason": "no_consent", "detail": None}]


def _brief_calls(refserver) -> int:
    calls = refserver.control("GET", "received?kinds=toolCalls")["toolCalls"]
    return sum(1 for c in calls if c["name"] == "project_brief")


def _subscribes(refserver) -> int:
    return len(refserver.control("GET", "received?kinds=subscribe")["subscribe"])


def _unsubscribes(refserver) -> list[dict]:
    return refserver.control("GET", "received?kinds=unsubscribe")["unsubscribe"]


def _session_start(personas, server):
    answer = personas.acme_api.post(
        f"/sessions/{uuid.uuid4().hex}/lifecycle",
        {"user": "alice", "event": "session_start", "servers": [server.id], "project_name": "x"},
    )
    assert answer.status_code == 200, answer.content
    return answer.json()


@pytest.mark.sqlite
def test_ending_it_stops_the_members_hooks_and_events_on_the_server(tpersonas, refserver, settings):
    """An organisation grant of hooks and events: the member's session_start
    hook calls the server's context tool and their subscription is made on
    the server; once the grant is ended, the next lifecycle event calls
    nothing and the subscription is revoked and never made again. (Committed
    personas: the subscribe runs on a connection of its own.)"""
    personas = tpersonas
    ref = server_register(host=personas.acme, name="Ref", actor=SYSTEM, url=refserver.mcp_url)
    settings.HOOK_CONTEXT_TOOL_TIMEOUT = 5
    settings.HOOK_READINESS_WAIT = 5
    in_groups(personas, "alice", ["eng"])
    body = {
        "server": ref.id,
        "scopes": ["hooks", "events"],
        "event_types": ["build.finished"],
        "groups": ["eng"],
        "user_can_revoke": False,
    }
    answer = personas.acme_api.post("/org-grants", body)
    assert answer.status_code == 201, answer.json()
    org = answer.json()

    fired = _session_start(personas, ref)
    assert fired["injections"] and _brief_calls(refserver) == 1
    # Made on the server as its subscribe would have left it.
    sub = make_subscription(
        personas.alice, ref, event="build.finished", remote_id="sub_org", arguments={}
    )

    assert personas.acme_api.delete(f"/org-grants/{org['id']}").status_code == 204
    stopped = _session_start(personas, ref)
    assert stopped["injections"] == []
    assert [s["reason"] for s in stopped["suppressed"]] == ["no_consent"]
    assert _brief_calls(refserver) == 1
    sub.refresh_from_db()
    assert sub.status == SubscriptionStatus.REVOKED
    # Owed to the server and taken down there: by a worker when one runs
    # (the session's), else by this one try of the worker's task here.
    assert sub.unsubscribe_state in (UnsubscribeState.PENDING, UnsubscribeState.DONE)
    assert subscription_unsubscribe(subscription_id=sub.pk) in ("done", "skipped")
    wait_for(lambda: _unsubscribes(refserver), message="the server was asked to unsubscribe")
    assert [u["name"] for u in _unsubscribes(refserver)] == ["build.finished"]
    subscription_refresh(subscription_id=sub.pk)
    assert _subscribes(refserver) == 0
