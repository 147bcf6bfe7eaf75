"""What the MCPE surface's tests (``test_mcpe_*.py``, `/mcpe/mcp`) share: a
client whose standalone GET stream is open and that records every MCPE
notification it receives, and the `/control/mcpe/*` routes they drive."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
from mcp import Client
from mcp.client import ClientExtension, NotificationBinding

from tests.refserver.support import RefServer, StreamParams, wait_for

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
