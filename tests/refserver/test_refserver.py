"""Capabilities, hook declarations, conversation events, tools and the control surface."""

from __future__ import annotations

import json

import httpx
import mcp_types as types
import pytest
from mcp.client import advertise

from tests.refserver.support import (
    EXT_CONVERSATION,
    EXT_EVENTS,
    EXT_HOOKS,
    MODES,
    RefServer,
    call,
    connect,
    expect_error,
    run,
)

pytestmark = pytest.mark.processes

# -- capabilities ----------------------------------------------------------------


def test_it_advertises_every_feature_in_extensions_and_experimental_on_2026(
    refserver: RefServer,
) -> None:
    async def body() -> None:
        async with connect(refserver, "auto") as client:
            assert client.protocol_version == "2026-07-28"
            caps = client.server_capabilities
            assert caps.extensions is not None and caps.experimental is not None
            assert caps.extensions[EXT_EVENTS] == {"listChanged": True}
            assert caps.extensions[EXT_CONVERSATION] == {"onUserMessage": True}
            assert len(caps.extensions[EXT_HOOKS]["declarations"]) == 4
            assert caps.experimental["events"] == {"listChanged": True}
            assert caps.experimental["conversationEvents"] == {"onUserMessage": True}
            assert caps.experimental["hooks"] == caps.extensions[EXT_HOOKS]
            raw = await client.session.send_discover(client.protocol_version)
            raw_caps = (
                raw["capabilities"] if isinstance(raw, dict) else raw.capabilities.model_dump()
            )
            assert raw_caps["conversationEvents"] == {"onUserMessage": True}
            assert raw_caps["events"] == {"listChanged": True}
            assert "declarations" in raw_caps["hooks"]

    run(body)


def test_it_mirrors_features_under_experimental_for_legacy_clients(refserver: RefServer) -> None:
    async def body() -> None:
        async with connect(refserver, "legacy") as client:
            assert client.protocol_version == "2025-11-25"
            caps = client.server_capabilities
            assert caps.experimental is not None
            assert caps.experimental["events"] == {"listChanged": True}
            assert caps.experimental["conversationEvents"] == {"onUserMessage": True}
            assert caps.experimental["hooks"]["declarations"][0]["event"] == "post_tool_use"

    run(body)


def test_the_raw_initialize_result_carries_top_level_fields(refserver: RefServer) -> None:
    response = httpx.post(
        refserver.mcp_url,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        headers={
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
        },
    )
    text = response.text
    payload = (
        json.loads(text[text.index("{") :].splitlines()[0])
        if text.startswith("event")
        else response.json()
    )
    caps = payload["result"]["capabilities"]
    assert caps["conversationEvents"] == {"onUserMessage": True}
    assert caps["experimental"]["hooks"] == caps["hooks"]


def test_each_capability_location_can_be_switched_off(refserver: RefServer) -> None:
    async def body() -> None:
        refserver.post("/control/capabilities", {"locations": ["experimental"]})
        async with connect(refserver, "auto") as client:
            caps = client.server_capabilities
            assert not (caps.extensions or {}).get(EXT_EVENTS)
            assert caps.experimental is not None and "events" in caps.experimental
            raw = await client.session.send_discover(client.protocol_version)
            assert "events" not in raw["capabilities"]
        refserver.post(
            "/control/capabilities", {"locations": {"hooks": ["extensions"], "events": []}}
        )
        async with connect(refserver, "auto") as client:
            caps = client.server_capabilities
            assert caps.extensions is not None and EXT_HOOKS in caps.extensions
            assert EXT_EVENTS not in caps.extensions
            assert "hooks" not in (caps.experimental or {})
            assert "events" not in (caps.experimental or {})
            assert "conversationEvents" in (caps.experimental or {})
        refserver.post("/control/capabilities", {"locations": []})
        async with connect(refserver, "legacy") as client:
            assert not client.server_capabilities.experimental

    run(body)


def test_hook_declarations_follow_the_seed_shape_and_client_filter(refserver: RefServer) -> None:
    async def body() -> None:
        async with connect(refserver, "auto") as client:
            declarations = client.server_capabilities.extensions[EXT_HOOKS]["declarations"]
        by_event = {d["event"]: d for d in declarations}
        assert by_event["post_tool_use"]["matcher"] == {
            "tool_name": "Bash",
            "input_contains": "git commit",
        }
        assert by_event["post_tool_use"]["priority"] == "suggestion"
        assert by_event["pre_tool_use"]["priority"] == "required"
        assert by_event["session_start"]["context_tool"] == "project_brief"
        assert by_event["session_start"]["context_tool_args"] == {"project_name": "{project_name}"}

        supported = advertise(EXT_HOOKS, {"supported_events": ["session_start", "post_tool_use"]})
        for mode in MODES:
            async with connect(refserver, mode, extensions=[supported]) as client:
                declarations = client.server_capabilities.experimental["hooks"]["declarations"]
                assert sorted(d["event"] for d in declarations) == [
                    "post_tool_use",
                    "session_start",
                ]
        reads = refserver.received("capabilityReads")["capabilityReads"]
        assert reads[-1]["supportedEvents"] == ["session_start", "post_tool_use"]

    run(body)


def test_declarations_can_be_replaced_with_invalid_ones(refserver: RefServer) -> None:
    async def body() -> None:
        invalid = [
            {"event": "post_tool_use", "context": "a", "context_tool": "b", "priority": "urgent"},
            {"oops": 1},
        ]
        refserver.post("/control/capabilities", {"declarations": invalid})
        async with connect(refserver, "auto") as client:
            assert client.server_capabilities.extensions[EXT_HOOKS]["declarations"] == invalid
        refserver.post("/control/capabilities", {"declarations": "default"})
        async with connect(refserver, "legacy") as client:
            assert len(client.server_capabilities.experimental["hooks"]["declarations"]) == 4

    run(body)


# -- conversation/userMessage ---------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_user_message_returns_context_and_is_recorded(refserver: RefServer, mode: str) -> None:
    async def body() -> None:
        async with connect(refserver, mode) as client:
            result = await call(
                client,
                "conversation/userMessage",
                {
                    "messageId": "m1",
                    "content": "What did we decide about the database schema?",
                    "recentHistory": [{"role": "user", "content": "hi"}],
                },
            )
        assert "m1" in result["context"]
        memories = result["structuredContext"]["memories"]
        assert {m["source"] for m in memories} >= {
            "memory-bank:database",
            "memory-bank:schema",
            "refserver",
        }
        assert all(0 <= m["relevance"] <= 1 for m in memories)
        (recorded,) = refserver.received("userMessages")["userMessages"]
        assert recorded["messageId"] == "m1"
        assert recorded["recentHistory"] == [{"role": "user", "content": "hi"}]

    run(body)


def test_user_message_can_be_made_slow_failing_or_garbage(refserver: RefServer) -> None:
    params = {"messageId": "m2", "content": "hello"}

    async def body() -> None:
        async with connect(refserver, "auto") as client:
            refserver.post(
                "/control/behaviour", {"method": "conversation/userMessage", "delay_ms": 2000}
            )
            err = await expect_error(call(client, "conversation/userMessage", params, timeout=0.5))
            assert err.code == types.REQUEST_TIMEOUT
            refserver.post(
                "/control/behaviour", {"method": "conversation/userMessage", "fail": "error"}
            )
            err = await expect_error(call(client, "conversation/userMessage", params))
            assert err.code == -32603
            refserver.post(
                "/control/behaviour",
                {"method": "conversation/userMessage", "fail": "garbage", "times": 1},
            )
            garbage = await call(client, "conversation/userMessage", params)
            assert garbage["context"] == 12345
            refserver.post(
                "/control/behaviour", {"method": "conversation/userMessage", "fail": "hang"}
            )
            err = await expect_error(call(client, "conversation/userMessage", params, timeout=0.5))
            assert err.code == types.REQUEST_TIMEOUT
            refserver.post("/control/behaviour", {"clear_all": True})
            assert "context" in await call(client, "conversation/userMessage", params)

    run(body)


# -- tools, resources, thread refresh ----------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_login_signals_a_thread_refresh_and_unlocks_tools(refserver: RefServer, mode: str) -> None:
    async def body() -> None:
        async with connect(refserver, mode) as client:
            meta = {"threadId": "thread-abc-123"}
            before = {t.name for t in (await client.list_tools(meta=meta)).tools}
            assert before == {"echo", "project_brief", "login", "deploy"}
            result = await client.call_tool("login", {"username": "alice"}, meta=meta)
            assert result.meta == {"refreshThreadCapabilities": "thread-abc-123"} or (
                result.meta is not None
                and result.meta["refreshThreadCapabilities"] == "thread-abc-123"
            )
            after = {t.name for t in (await client.list_tools(meta=meta)).tools}
            assert after == before | {"private_repos"}
            other = {t.name for t in (await client.list_tools(meta={"threadId": "other"})).tools}
            assert "private_repos" not in other
            resources = {str(r.uri) for r in (await client.list_resources(meta=meta)).resources}
            assert resources == {"refserver://readme", "refserver://private/repos"}
            brief = await client.call_tool("project_brief", {"project_name": "switchboard"})
            assert "switchboard" in brief.content[0].text
            echo = await client.call_tool("echo", {"text": "hi"})
            assert echo.content[0].text == "hi"
        records = refserver.received("toolsList", "resourcesList", "toolCalls")
        assert [r["threadId"] for r in records["toolsList"]] == [
            "thread-abc-123",
            "thread-abc-123",
            "other",
        ]
        assert records["toolsList"][0]["meta"]["threadId"] == "thread-abc-123"
        assert records["resourcesList"][0]["threadId"] == "thread-abc-123"
        assert records["toolCalls"][0]["name"] == "login"

    run(body)


def test_login_takes_the_thread_from_arguments(refserver: RefServer) -> None:
    async def body() -> None:
        async with connect(refserver, "auto") as client:
            result = await client.call_tool("login", {"thread_id": "t-9"})
            assert result.meta is not None and result.meta["refreshThreadCapabilities"] == "t-9"

    run(body)


# -- control surface -------------------------------------------------------------------


def test_control_surface_basics(refserver: RefServer) -> None:
    assert refserver.get("/healthz") == {"ok": True, "name": "refserver"}
    config = refserver.post("/control/config", {"min_ttl_ms": 100, "events_page_size": 3})
    assert config["min_ttl_ms"] == 100 and config["events_page_size"] == 3
    refserver.post("/control/config", {"nonsense": 1}, expect=400)
    refserver.post("/control/emit", {"name": "unknown.type", "data": {}}, expect=404)
    refserver.post("/control/emit", {"data": {}}, expect=400)
    refserver.post("/control/behaviour", {"method": "x", "fail": "explode"}, expect=400)
    emitted = refserver.post(
        "/control/emit", {"name": "alert.fired", "data": {"summary": "s"}, "count": 3}
    )
    assert [e["cursor"] for e in emitted["emitted"]] == ["1", "2", "3"]
    assert refserver.get("/control/events")["alert.fired"]["head"] == "3"
    refserver.post("/control/reset")
    assert refserver.get("/control/config")["events_page_size"] == 2
    assert refserver.get("/control/events") == {}
    assert all(v == [] for v in refserver.get("/control/received").values())
