"""The MCPE surface (`/mcpe/mcp`): its tools, their schemas and what each
does (update, unsubscribe, a list per session), and the arguments they
refuse (the client: ``mcpe_support.py``)."""

from __future__ import annotations

import uuid

import httpx
import pytest
from mcp import Client

from tests.refserver.mcpe_support import (
    REALTIME,
    TOOLS,
    control_sub,
    emit,
    in_seconds,
    mcpe,
    mcpe_url,
    sub_ids,
)
from tests.refserver.support import RefServer, run, wait_for

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


# -- discovery ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_tools_carry_the_seed_schemas_and_no_capability_is_declared(
    refserver: RefServer, mode: str
) -> None:
    async def body() -> None:
        async with Client(mcpe_url(refserver), mode=mode) as client:
            # auto falls back to initialize: the server refuses server/discover.
            assert client.protocol_version == "2025-11-25"
            caps = client.server_capabilities
            assert not caps.experimental and not caps.extensions
            assert "events" not in caps.model_dump(by_alias=True, exclude_none=True)
            tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        subscribe = tools["events_subscribe"].input_schema
        assert tools["events_subscribe"].description == "Subscribe to events matching a filter"
        assert set(subscribe["properties"]) == {"filter", "delivery", "handler", "expiresAt"}
        filt = subscribe["properties"]["filter"]["properties"]
        assert filt["eventTypes"] == {
            "type": "array",
            "items": {"type": "string"},
            "description": (
                "Event types, supports wildcards (e.g., ['github.push', 'github.issue.*'])"
            ),
        }
        assert filt["priority"]["items"] == {"enum": ["low", "normal", "high", "critical"]}
        delivery = subscribe["properties"]["delivery"]
        assert delivery["required"] == ["channels"]
        assert delivery["properties"]["channels"]["items"] == {
            "enum": ["realtime", "cron", "scheduled"]
        }
        assert delivery["properties"]["cronSchedule"]["properties"]["aggregateEvents"] == {
            "type": "boolean",
            "default": True,
        }
        assert delivery["properties"]["scheduledDelivery"]["properties"]["deliverAt"] == {
            "type": "string",
            "format": "date-time",
        }
        handlers = subscribe["properties"]["handler"]["oneOf"]
        assert [h["properties"]["type"] for h in handlers] == [
            {"const": "bash"},
            {"const": "agent"},
            {"const": "webhook"},
        ]
        assert [h["required"] for h in handlers] == [["type", "command"], ["type"], ["type", "url"]]
        assert subscribe["properties"]["expiresAt"]["format"] == "date-time"
        for name in ("events_unsubscribe", "events_pause", "events_resume"):
            assert tools[name].input_schema == {
                "type": "object",
                "properties": {"subscriptionId": {"type": "string", "format": "uuid"}},
                "required": ["subscriptionId"],
            }
        assert tools["events_list"].input_schema == {
            "type": "object",
            "properties": {"status": {"enum": ["active", "paused", "expired"]}},
        }
        update = tools["events_update"].input_schema
        assert update["required"] == ["subscriptionId"]
        assert update["properties"]["expiresAt"] == {
            "type": "string",
            "format": "date-time",
            "nullable": True,
        }
        assert update["properties"]["filter"] == subscribe["properties"]["filter"]
        assert update["properties"]["delivery"] == delivery

    run(body)


def test_a_sessionless_request_other_than_initialize_is_refused(refserver: RefServer) -> None:
    response = httpx.post(
        mcpe_url(refserver),
        json={"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}},
        headers={"accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32000


def test_update_replaces_the_filter_and_expiry(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            sub_id = await c.subscribe(filter={"eventTypes": ["a.one"]}, expiresAt=in_seconds(3600))
            updated = await c.ok(
                "events_update",
                {"subscriptionId": sub_id, "filter": {"eventTypes": ["b.*"]}, "expiresAt": None},
            )
            assert updated["subscriptionId"] == sub_id and updated["status"] == "active"
            assert updated["filter"] == {"eventTypes": ["b.*"]}
            assert updated["delivery"] == REALTIME
            assert "expiresAt" not in updated
            assert emit(refserver, "a.one")["delivered"] == []
            assert sub_ids(emit(refserver, "b.two")["delivered"]) == [sub_id]
            await wait_for(lambda: len(c.inbox.of("events/event")) == 1)
            text = await c.refused(
                "events_update", {"subscriptionId": str(uuid.uuid4()), "filter": {}}
            )
            assert "not found" in text
            text = await c.refused(
                "events_update", {"subscriptionId": sub_id, "delivery": {"channels": []}}
            )
            assert "channels" in text
        assert c.inbox.of("events/event")[0]["event"]["type"] == "b.two"

    run(body)


def test_unsubscribe_removes_the_subscription(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            sub_id = await c.subscribe(filter={"eventTypes": ["x.y"]})
            removed = await c.ok("events_unsubscribe", {"subscriptionId": sub_id})
            assert removed["subscriptionId"] == sub_id
            assert (await c.ok("events_list"))["subscriptions"] == []
            assert emit(refserver, "x.y")["delivered"] == []
            assert "not found" in await c.refused("events_unsubscribe", {"subscriptionId": sub_id})
            assert "subscriptionId" in await c.refused("events_pause", {})
        assert refserver.get("/control/mcpe/subscriptions")["subscriptions"] == []

    run(body)


def test_events_list_is_per_session(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as a, mcpe(refserver) as b:
            assert a.session != b.session
            handler = {"type": "webhook", "url": "https://example.com/hook"}
            mine = await a.subscribe(filter={"eventTypes": ["t.*"]}, handler=handler)
            theirs = await b.subscribe(filter={"eventTypes": ["t.*"]})
            (listed,) = (await a.ok("events_list"))["subscriptions"]
            assert listed["subscriptionId"] == mine and listed["handler"] == handler
            assert set(listed) == {
                "subscriptionId",
                "status",
                "filter",
                "delivery",
                "handler",
                "createdAt",
            }
            assert [s["subscriptionId"] for s in (await b.ok("events_list"))["subscriptions"]] == [
                theirs
            ]
            # Another session's subscription does not exist for this one.
            await a.refused("events_pause", {"subscriptionId": theirs})
            emit(refserver, "t.1")
            await wait_for(lambda: len(a.inbox.of("events/event")) == 1)
            await wait_for(lambda: len(b.inbox.of("events/event")) == 1)
        assert a.inbox.of("events/event")[0]["subscriptionId"] == mine
        assert b.inbox.of("events/event")[0]["subscriptionId"] == theirs
        assert control_sub(refserver, mine)["handler"] == handler

    run(body)


def test_bad_arguments_are_refused_as_tool_errors_and_every_call_is_recorded(
    refserver: RefServer,
) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            bad = [
                {"filter": {"priority": ["urgent"]}},
                {"filter": "github.*"},
                {"delivery": {"channels": ["pigeon"]}},
                {"delivery": {"channels": ["cron"]}},
                {"delivery": {"channels": ["cron"], "cronSchedule": {"expression": "nope"}}},
                {
                    "delivery": {
                        "channels": ["cron"],
                        "cronSchedule": {"expression": "0 9 * * *", "timezone": "Mars/Olympus"},
                    }
                },
                {"delivery": {"channels": ["scheduled"], "scheduledDelivery": {"deliverAt": "x"}}},
                {"handler": {"type": "python"}},
                {"handler": {"type": "bash"}},
                {"expiresAt": "tomorrow"},
            ]
            for arguments in bad:
                await c.refused("events_subscribe", arguments)
            await c.refused("events_list", {"status": "gone"})
        calls = refserver.get("/control/mcpe/calls")["calls"]
        assert [call["name"] for call in calls] == [
            "events_list",
            *["events_subscribe"] * 10,
            "events_list",
        ]
        assert [call["arguments"] for call in calls[1:11]] == bad
        assert {call["session"] for call in calls} == {c.session}
        assert refserver.get("/control/mcpe/subscriptions")["subscriptions"] == []

    run(body)
