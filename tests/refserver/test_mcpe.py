"""The MCPE surface (`/mcpe/mcp`): tools, notifications, matching quirks,
delivery channels and the `/control/mcpe/*` routes."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import anyio
import httpx
import pytest
from mcp import Client, MCPError
from mcp.client import ClientExtension, NotificationBinding

from tests.refserver.support import RefServer, StreamParams, expect_error, run, wait_for

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]

TOOLS = {
    "events_subscribe",
    "events_unsubscribe",
    "events_list",
    "events_pause",
    "events_resume",
    "events_update",
}
NOTIFICATIONS = ("events/event", "events/batch", "events/subscription_expired")
REALTIME = {"channels": ["realtime"]}


def mcpe_url(server: RefServer) -> str:
    return f"{server.base}/mcpe/mcp"


@dataclass
class Inbox:
    """Every MCPE notification one client received, in order."""

    items: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def of(self, method: str) -> list[dict[str, Any]]:
        return [params for m, params in self.items if m == method]

    def extension(self) -> ClientExtension:
        inbox = self

        def binding(method: str) -> NotificationBinding[StreamParams]:
            async def handler(params: StreamParams) -> None:
                inbox.items.append((method, params.model_dump(by_alias=True, exclude_none=True)))

            return NotificationBinding(method=method, params_type=StreamParams, handler=handler)

        class McpeNotifications(ClientExtension):
            identifier = "com.example/mcpe"

            def notifications(self) -> list[NotificationBinding[Any]]:
                return [binding(m) for m in NOTIFICATIONS]

        return McpeNotifications()


@dataclass
class Mcpe:
    client: Client
    inbox: Inbox
    session: str

    async def ok(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.client.call_tool(name, arguments or {})
        assert not result.is_error, result.content[0].text
        return json.loads(result.content[0].text)

    async def refused(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        result = await self.client.call_tool(name, arguments or {})
        assert result.is_error, result.content[0].text
        return result.content[0].text

    async def subscribe(self, **arguments: Any) -> str:
        arguments.setdefault("delivery", REALTIME)
        return (await self.ok("events_subscribe", arguments))["subscriptionId"]


def get_stream_open(server: RefServer, session: str) -> bool:
    sessions = server.get("/control/mcpe/sessions")["sessions"]
    return any(s["session"] == session and s["getStream"] for s in sessions)


@asynccontextmanager
async def mcpe(server: RefServer, mode: str = "legacy") -> AsyncIterator[Mcpe]:
    """A client whose standalone GET stream is open (events only travel there)."""
    inbox = Inbox()
    async with Client(mcpe_url(server), mode=mode, extensions=[inbox.extension()]) as client:
        await client.call_tool("events_list", {})
        session = server.get("/control/mcpe/calls")["calls"][-1]["session"]
        await wait_for(lambda: get_stream_open(server, session))
        yield Mcpe(client, inbox, session)


def emit(server: RefServer, event_type: str, **body: Any) -> dict[str, Any]:
    return server.post("/control/mcpe/emit", {"type": event_type, **body})


async def settle() -> None:
    """Long enough for a notification already sent to arrive."""
    await anyio.sleep(0.3)


def sub_ids(refs: list[dict[str, str]]) -> list[str]:
    return [r["subscriptionId"] for r in refs]


def control_sub(server: RefServer, sub_id: str) -> dict[str, Any]:
    subs = server.get("/control/mcpe/subscriptions")["subscriptions"]
    return next(s for s in subs if s["subscriptionId"] == sub_id)


def in_seconds(seconds: float) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


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


# -- realtime delivery ------------------------------------------------------------------------


def test_subscribe_then_emit_sends_events_event(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            result = await c.ok(
                "events_subscribe",
                {
                    "filter": {"eventTypes": ["github.issue.*"], "priority": ["high"]},
                    "delivery": REALTIME,
                    "expiresAt": in_seconds(3600),
                },
            )
            assert set(result) == {
                "subscriptionId",
                "status",
                "filter",
                "delivery",
                "createdAt",
                "expiresAt",
            }
            assert result["status"] == "active"
            assert result["filter"] == {"eventTypes": ["github.issue.*"], "priority": ["high"]}
            assert result["delivery"] == REALTIME
            uuid.UUID(result["subscriptionId"])
            datetime.fromisoformat(result["createdAt"])
            sub_id = result["subscriptionId"]

            emitted = emit(
                refserver,
                "github.issue.opened",
                data={"title": "Bug report", "repo": "org/repo", "number": 123},
                metadata={"sourceEventId": "gh-evt-456", "priority": "high", "tags": ["bug"]},
            )
            event = emitted["event"]
            assert emitted["delivered"] == [{"subscriptionId": sub_id, "eventId": event["id"]}]
            assert emitted["queued"] == []
            await wait_for(lambda: len(c.inbox.of("events/event")) == 1)
        (params,) = c.inbox.of("events/event")
        assert params == {"subscriptionId": sub_id, "event": event}
        assert set(event) == {"id", "type", "data", "metadata"}
        uuid.UUID(event["id"])
        assert event["type"] == "github.issue.opened"
        assert event["data"] == {"title": "Bug report", "repo": "org/repo", "number": 123}
        metadata = event["metadata"]
        assert metadata["sourceEventId"] == "gh-evt-456"
        assert metadata["priority"] == "high" and metadata["tags"] == ["bug"]
        datetime.fromisoformat(metadata["timestamp"])
        described = control_sub(refserver, sub_id)
        assert described["session"] == c.session and described["sent"]["events"] == 1

    run(body)


def test_matching_follows_upstream_including_its_quirks(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            wildcard = await c.subscribe(filter={"eventTypes": ["github.*"]})
            star = await c.subscribe(filter={"eventTypes": ["*"]})
            tagged = await c.subscribe(filter={"eventTypes": ["github.push"], "tags": ["ci", "x"]})
            urgent = await c.subscribe(filter={"priority": ["high", "critical"]})
            everything = await c.subscribe(filter={})

            push = emit(refserver, "github.push", metadata={"tags": ["ci"]})
            assert sorted(sub_ids(push["delivered"])) == sorted([wildcard, tagged, everything])
            deep = emit(refserver, "github.issue.opened", metadata={"priority": "high"})
            assert sorted(sub_ids(deep["delivered"])) == sorted([wildcard, urgent, everything])
            other = emit(refserver, "slack.message", metadata={"priority": "low", "tags": ["x"]})
            assert sub_ids(other["delivered"]) == [everything]
            bare = emit(refserver, "github", metadata={"priority": "critical"})
            assert sorted(sub_ids(bare["delivered"])) == sorted([urgent, everything])
            untagged = emit(refserver, "github.push")
            assert sorted(sub_ids(untagged["delivered"])) == sorted([wildcard, everything])
            await wait_for(lambda: len(c.inbox.of("events/event")) == 11)
        received = {p["subscriptionId"] for p in c.inbox.of("events/event")}
        assert star not in received  # a bare "*" matches nothing
        assert control_sub(refserver, star)["sent"]["events"] == 0
        # An event without priority never matches a priority filter.
        assert urgent not in sub_ids(push["delivered"]) + sub_ids(untagged["delivered"])

    run(body)


def test_paused_subscriptions_get_nothing_and_resume_restarts_the_flow(
    refserver: RefServer,
) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            sub_id = await c.subscribe(filter={"eventTypes": ["deploy.*"]})
            paused = await c.ok("events_pause", {"subscriptionId": sub_id})
            assert paused["subscriptionId"] == sub_id and paused["status"] == "paused"
            listed = await c.ok("events_list", {"status": "paused"})
            assert [s["subscriptionId"] for s in listed["subscriptions"]] == [sub_id]
            assert (await c.ok("events_list", {"status": "active"}))["subscriptions"] == []
            missed = emit(refserver, "deploy.finished", data={"n": 1})
            assert missed["delivered"] == [] and missed["queued"] == []
            resumed = await c.ok("events_resume", {"subscriptionId": sub_id})
            assert resumed["status"] == "active"
            emit(refserver, "deploy.finished", data={"n": 2})
            await wait_for(lambda: len(c.inbox.of("events/event")) == 1)
            await settle()
        # Nothing was queued while paused.
        assert [p["event"]["data"] for p in c.inbox.of("events/event")] == [{"n": 2}]

    run(body)


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


# -- cron and scheduled ---------------------------------------------------------------------------


def test_cron_collects_events_into_one_batch_per_firing(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            daily = {
                "channels": ["cron"],
                "cronSchedule": {
                    "expression": "0 9 * * *",
                    "timezone": "America/New_York",
                    "aggregateEvents": True,
                    "maxEventsPerDelivery": 2,
                },
            }
            sub_id = await c.subscribe(filter={"eventTypes": ["ci.*"]}, delivery=daily)
            nine = datetime.fromisoformat(control_sub(refserver, sub_id)["nextCronAt"])
            assert nine.astimezone(ZoneInfo("America/New_York")).hour == 9
            for n in range(3):
                result = emit(refserver, "ci.build", data={"n": n})
                assert result["delivered"] == [] and sub_ids(result["queued"]) == [sub_id]
            assert control_sub(refserver, sub_id)["pending"] == 2  # full: the oldest went
            await settle()
            assert c.inbox.items == []
            flushed = refserver.post("/control/mcpe/flush", {"subscriptionId": sub_id})
            assert [e["data"] for e in flushed["events"]] == [{"n": 1}, {"n": 2}]
            assert flushed["expired"] is False
            await wait_for(lambda: len(c.inbox.of("events/batch")) == 1)
            # Nothing pending: a firing sends nothing.
            assert refserver.post("/control/mcpe/flush", {"subscriptionId": sub_id})["events"] == []
            await settle()
        (batch,) = c.inbox.of("events/batch")
        assert batch["subscriptionId"] == sub_id
        assert [e["data"] for e in batch["events"]] == [{"n": 1}, {"n": 2}]
        assert all(set(e) == {"id", "type", "data", "metadata"} for e in batch["events"])
        assert control_sub(refserver, sub_id)["status"] == "active"

    run(body)


def test_a_real_cron_firing_sends_the_batch(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            every_second = {
                "channels": ["cron"],
                "cronSchedule": {"expression": "* * * * * *", "timezone": "Europe/Paris"},
            }
            sub_id = await c.subscribe(delivery=every_second)
            emit(refserver, "tick.tock", count=2)
            await wait_for(lambda: len(c.inbox.of("events/batch")) == 1, timeout=3)
        (batch,) = c.inbox.of("events/batch")
        assert batch["subscriptionId"] == sub_id and len(batch["events"]) == 2
        assert len({e["id"] for e in batch["events"]}) == 2

    run(body)


def test_scheduled_delivery_sends_a_batch_then_expires(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            later = {
                "channels": ["scheduled"],
                "scheduledDelivery": {"deliverAt": in_seconds(3600), "autoExpire": True},
            }
            sub_id = await c.subscribe(filter={"eventTypes": ["reminder.*"]}, delivery=later)
            emit(refserver, "reminder.due", data={"what": "tea"})
            flushed = refserver.post("/control/mcpe/flush", {"subscriptionId": sub_id})
            assert flushed["expired"] is True and len(flushed["events"]) == 1
            await wait_for(lambda: len(c.inbox.of("events/subscription_expired")) == 1)
            (listed,) = (await c.ok("events_list", {"status": "expired"}))["subscriptions"]
            assert listed["subscriptionId"] == sub_id
            assert emit(refserver, "reminder.due")["queued"] == []
            # A delivery time already past fires at once (nothing pending, so no batch).
            past = {"channels": ["scheduled"], "scheduledDelivery": {"deliverAt": in_seconds(-60)}}
            gone = await c.subscribe(delivery=past)
            await wait_for(lambda: len(c.inbox.of("events/subscription_expired")) == 2)
        assert [m for m, _ in c.inbox.items] == [
            "events/batch",
            "events/subscription_expired",
            "events/subscription_expired",
        ]
        batch = c.inbox.of("events/batch")[0]
        assert batch["subscriptionId"] == sub_id
        assert batch["events"][0]["data"] == {"what": "tea"}
        expired = c.inbox.of("events/subscription_expired")
        assert expired == [{"subscriptionId": sub_id}, {"subscriptionId": gone}]

    run(body)


# -- expiry, forgetting, lost sessions --------------------------------------------------------------


def test_expire_endpoint_and_expires_at_send_subscription_expired(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            sub_id = await c.subscribe(filter={"eventTypes": ["a.b"]})
            described = refserver.post("/control/mcpe/expire", {"subscriptionId": sub_id})
            assert described["status"] == "expired" and described["notified"] is True
            await wait_for(lambda: len(c.inbox.of("events/subscription_expired")) == 1)
            assert emit(refserver, "a.b")["delivered"] == []
            assert "expired" in await c.refused("events_resume", {"subscriptionId": sub_id})
            soon = await c.subscribe(filter={"eventTypes": ["a.b"]}, expiresAt=in_seconds(0.5))
            await wait_for(lambda: len(c.inbox.of("events/subscription_expired")) == 2, timeout=3)
            statuses = {
                s["subscriptionId"]: s["status"]
                for s in (await c.ok("events_list"))["subscriptions"]
            }
        assert statuses == {sub_id: "expired", soon: "expired"}
        assert c.inbox.of("events/subscription_expired")[1] == {"subscriptionId": soon}
        refserver.post("/control/mcpe/expire", {"subscriptionId": "nope"}, expect=404)

    run(body)


def test_forget_loses_every_subscription(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            sub_id = await c.subscribe(filter={"eventTypes": ["k.*"]})
            assert refserver.post("/control/mcpe/forget") == {"forgotten": [sub_id]}
            assert (await c.ok("events_list"))["subscriptions"] == []
            assert emit(refserver, "k.l")["delivered"] == []
            await c.refused("events_pause", {"subscriptionId": sub_id})
            await settle()
        assert c.inbox.items == []

    run(body)


def _post(url: str, payload: dict[str, Any], session: str | None = None) -> httpx.Response:
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": "2025-11-25",
    }
    if session:
        headers["mcp-session-id"] = session
    return httpx.post(url, json=payload, headers=headers, timeout=10)


def _rpc_result(response: httpx.Response) -> dict[str, Any]:
    if response.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        message = next(json.loads(d) for d in data if d.strip() and '"result"' in d)
    else:
        message = response.json()
    return message["result"]


def test_a_notification_without_a_get_stream_is_recorded_as_dropped(
    refserver: RefServer,
) -> None:
    url = mcpe_url(refserver)
    opened = _post(
        url,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
    )
    session = opened.headers["mcp-session-id"]
    try:
        _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "events_subscribe",
                "arguments": {"filter": {"eventTypes": ["n.*"]}, "delivery": REALTIME},
            },
        }
        result = _rpc_result(_post(url, call, session))
        sub_id = json.loads(result["content"][0]["text"])["subscriptionId"]
        assert not get_stream_open(refserver, session)
        emitted = emit(refserver, "n.o")
        assert emitted["delivered"] == []
        assert emitted["dropped"] == [{"subscriptionId": sub_id, "eventId": emitted["event"]["id"]}]
        (dropped,) = refserver.get("/control/mcpe/dropped")["dropped"]
        assert dropped["method"] == "events/event" and dropped["session"] == session
        assert dropped["reason"] == "no GET stream open"
        assert dropped["params"] == {"subscriptionId": sub_id, "event": emitted["event"]}
        assert control_sub(refserver, sub_id)["dropped"] == 1
    finally:
        httpx.delete(
            url,
            headers={"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"},
            timeout=10,
        )


def test_dropped_sessions_leave_their_subscriptions_behind(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            sub_id = await c.subscribe(filter={"eventTypes": ["z.*"]})
            dropped = refserver.post("/control/mcpe/drop-sessions")
            assert dropped == {"sessions": [c.session]}
            err = await expect_error(c.client.call_tool("events_list", {}))
            assert isinstance(err, MCPError)
        # Still there server-side, tied to the dead session...
        described = control_sub(refserver, sub_id)
        assert described["session"] == c.session and described["status"] == "active"
        emitted = emit(refserver, "z.1")
        assert emitted["dropped"] == [{"subscriptionId": sub_id, "eventId": emitted["event"]["id"]}]
        assert refserver.get("/control/mcpe/dropped")["dropped"][-1]["reason"] == "session closed"
        # ...and invisible to the client's new session.
        async with mcpe(refserver) as fresh:
            assert (await fresh.ok("events_list"))["subscriptions"] == []
            assert "not found" in await fresh.refused("events_pause", {"subscriptionId": sub_id})

    run(body)


def test_control_errors_and_reset(refserver: RefServer) -> None:
    refserver.post("/control/mcpe/emit", {}, expect=400)
    refserver.post("/control/mcpe/emit", {"type": "a", "metadata": "x"}, expect=400)
    refserver.post("/control/mcpe/emit", {"type": "a", "count": 0}, expect=400)
    refserver.post("/control/mcpe/flush", {}, expect=400)
    refserver.post("/control/mcpe/flush", {"subscriptionId": "nope"}, expect=404)
    many = emit(refserver, "a.b", count=3)
    assert len({e["id"] for e in many["event"]}) == 3

    async def body() -> None:
        async with mcpe(refserver) as c:
            sub_id = await c.subscribe()
            # A realtime subscription has no batch to flush.
            refserver.post("/control/mcpe/flush", {"subscriptionId": sub_id}, expect=400)

    run(body)
    assert refserver.get("/control/mcpe/calls")["calls"]
    refserver.post("/control/reset")
    assert refserver.get("/control/mcpe/subscriptions") == {"subscriptions": []}
    assert refserver.get("/control/mcpe/calls") == {"calls": []}
    assert refserver.get("/control/mcpe/dropped") == {"dropped": []}


def test_a_delay_holds_a_tool_call_in_hand_until_it_is_cleared(refserver: RefServer) -> None:
    refserver.post("/control/mcpe/delay", {"tool": "events_nothing", "delay_ms": 10}, expect=400)
    refserver.post("/control/mcpe/delay", {"tool": "events_subscribe", "delay_ms": -1}, expect=400)

    async def body() -> None:
        async with mcpe(refserver) as c:
            held = {"tool": "events_subscribe", "delay_ms": 60_000}
            assert refserver.post("/control/mcpe/delay", held) == held
            answered: list[str] = []

            async def subscribe() -> None:
                answered.append(await c.subscribe(filter={"eventTypes": ["d.*"]}))

            async with anyio.create_task_group() as group:
                group.start_soon(subscribe)
                # In the server's hands (recorded), not answered, not made yet.
                await wait_for(
                    lambda: any(
                        call["name"] == "events_subscribe"
                        for call in refserver.get("/control/mcpe/calls")["calls"]
                    )
                )
                await anyio.sleep(0.5)  # a bounded look for an absence: still held
                assert answered == []
                assert refserver.get("/control/mcpe/subscriptions")["subscriptions"] == []
                # Other tools are not held.
                assert (await c.ok("events_list"))["subscriptions"] == []
                cleared = {"tool": "events_subscribe", "delay_ms": 0}
                assert refserver.post("/control/mcpe/delay", cleared) == cleared
            assert len(answered) == 1
            assert [s["subscriptionId"] for s in (await c.ok("events_list"))["subscriptions"]] == (
                answered
            )
            # A short delay ends by itself; and cleared, calls go at once again.
            refserver.post("/control/mcpe/delay", {"tool": "events_pause", "delay_ms": 1000})
            started = anyio.current_time()
            await c.ok("events_pause", {"subscriptionId": answered[0]})
            assert anyio.current_time() - started >= 1.0
            refserver.post("/control/mcpe/delay", {"tool": "events_pause", "delay_ms": 0})
            started = anyio.current_time()
            await c.ok("events_resume", {"subscriptionId": answered[0]})
            await c.ok("events_pause", {"subscriptionId": answered[0]})
            assert anyio.current_time() - started < 1.0

    run(body)
