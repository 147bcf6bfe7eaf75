"""The MCPE surface (`/mcpe/mcp`): subscriptions that end or are lost:
expiry, forgetting, a notification with no GET stream open, dropped
sessions (the client: ``mcpe_support.py``)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from mcp import MCPError

from tests.refserver.mcpe_support import (
    REALTIME,
    control_sub,
    emit,
    get_stream_open,
    in_seconds,
    mcpe,
    mcpe_url,
    settle,
)
from tests.refserver.support import RefServer, expect_error, run, wait_for

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


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
