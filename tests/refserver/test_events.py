"""events/list paging, events/poll, events/stream and list_changed."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest
from mcp.client import ClientExtension, NotificationBinding

from tests.refserver.support import (
    EXT_EVENTS,
    MODES,
    RefServer,
    StreamParams,
    call,
    connect,
    expect_error,
    run,
    wait_for,
)

pytestmark = pytest.mark.processes

# -- events/list -----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_events_list_pages_through_every_type(refserver: RefServer, mode: str) -> None:
    async def body() -> None:
        async with connect(refserver, mode) as client:
            names: list[str] = []
            pages = 0
            cursor: str | None = None
            while True:
                page = await call(client, "events/list", {"cursor": cursor} if cursor else {})
                pages += 1
                for descriptor in page["events"]:
                    assert {
                        "name",
                        "description",
                        "delivery",
                        "inputSchema",
                        "payloadSchema",
                    } <= descriptor.keys()
                    assert "filterKeys" not in descriptor
                    names.append(descriptor["name"])
                cursor = page.get("nextCursor")
                if not cursor:
                    break
            assert pages == 3  # five types, two a page
            assert names == [
                "build.finished",
                "ticket.created",
                "alert.fired",
                "deploy.status",
                "deploy.progress",
            ]
            err = await expect_error(call(client, "events/list", {"cursor": "garbage!"}))
            assert err.code == -32602

    run(body)


# -- poll and stream -------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_poll_returns_events_after_the_cursor(refserver: RefServer, mode: str) -> None:
    async def body() -> None:
        async with connect(refserver, mode) as client:
            fresh = await call(
                client, "events/poll", {"name": "ticket.created", "arguments": {}, "cursor": None}
            )
            assert fresh["events"] == [] and fresh["cursor"] == "0" and fresh["hasMore"] is False
            for n in range(3):
                refserver.post(
                    "/control/emit",
                    {"name": "ticket.created", "data": {"key": f"T-{n}", "title": "t"}},
                )
            page = await call(
                client,
                "events/poll",
                {"name": "ticket.created", "arguments": {}, "cursor": "0", "maxEvents": 2},
            )
            assert [e["data"]["key"] for e in page["events"]] == ["T-0", "T-1"]
            assert page["hasMore"] is True and page["cursor"] == "2"
            rest = await call(
                client,
                "events/poll",
                {"name": "ticket.created", "arguments": {}, "cursor": page["cursor"]},
            )
            assert [e["data"]["key"] for e in rest["events"]] == ["T-2"]
            assert rest["hasMore"] is False and rest["nextPollMs"] == 1000
            stale = await call(
                client,
                "events/poll",
                {"name": "ticket.created", "arguments": {}, "cursor": "nonsense"},
            )
            assert stale["truncated"] is True and stale["cursor"] == "3"

            async def emit_later() -> None:
                await anyio.sleep(0.3)
                await anyio.to_thread.run_sync(
                    lambda: refserver.post(
                        "/control/emit",
                        {"name": "ticket.created", "data": {"key": "T-3", "title": "t"}},
                    )
                )

            async with anyio.create_task_group() as tg:
                tg.start_soon(emit_later)
                started = time.monotonic()
                waited = await call(
                    client,
                    "events/poll",
                    {"name": "ticket.created", "arguments": {}, "cursor": "3", "timeoutMs": 5000},
                )
            assert [e["data"]["key"] for e in waited["events"]] == ["T-3"]
            assert time.monotonic() - started < 3
            err = await expect_error(
                call(
                    client,
                    "events/poll",
                    {"name": "build.finished", "arguments": {"repo": "a"}, "cursor": None},
                )
            )
            assert err.code == -32014

    run(body)


@pytest.mark.parametrize("mode", MODES)
def test_stream_pushes_active_events_heartbeats_and_terminated(
    refserver: RefServer, mode: str
) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    def binding(kind: str) -> NotificationBinding[StreamParams]:
        async def handler(params: StreamParams) -> None:
            seen.append((kind, params.model_dump(by_alias=True)))

        return NotificationBinding(
            method=f"notifications/events/{kind}", params_type=StreamParams, handler=handler
        )

    class EventsClient(ClientExtension):
        identifier = EXT_EVENTS

        def notifications(self) -> list[NotificationBinding[Any]]:
            return [binding(k) for k in ("active", "event", "heartbeat", "terminated", "error")]

    async def body() -> None:
        async with connect(refserver, mode, extensions=[EventsClient()]) as client:
            result: dict[str, Any] = {}

            async def open_stream() -> None:
                result.update(
                    await call(
                        client,
                        "events/stream",
                        {"name": "deploy.status", "arguments": {}, "cursor": None},
                    )
                )

            async with anyio.create_task_group() as tg:
                tg.start_soon(open_stream)
                await wait_for(lambda: any(k == "active" for k, _ in seen))
                await anyio.to_thread.run_sync(
                    lambda: refserver.post(
                        "/control/emit", {"name": "deploy.status", "data": {"state": "rolling"}}
                    )
                )
                await wait_for(lambda: any(k == "event" for k, _ in seen))
                await wait_for(lambda: any(k == "heartbeat" for k, _ in seen))
                await anyio.to_thread.run_sync(
                    lambda: refserver.post("/control/terminate", {"name": "deploy.status"})
                )
            assert result.get("resultType", "complete") == "complete"
        kinds = [k for k, _ in seen]
        assert kinds[0] == "active" and "terminated" in kinds
        event = next(p for k, p in seen if k == "event")
        assert event["data"] == {"state": "rolling"} and event["cursor"] == "1"
        assert "io.modelcontextprotocol/subscriptionId" in event["_meta"]

    run(body)


def test_legacy_sessions_hear_list_changed_when_event_types_change(refserver: RefServer) -> None:
    seen: list[str] = []

    async def on_list_changed(params: StreamParams) -> None:
        seen.append("events")

    class EventsClient(ClientExtension):
        identifier = EXT_EVENTS

        def notifications(self) -> list[NotificationBinding[Any]]:
            return [
                NotificationBinding(
                    method="notifications/events/list_changed",
                    params_type=StreamParams,
                    handler=on_list_changed,
                )
            ]

    async def body() -> None:
        async with connect(refserver, "legacy", extensions=[EventsClient()]) as client:
            await client.list_tools()
            await anyio.sleep(0.3)  # let the client open its standalone stream
            await anyio.to_thread.run_sync(
                lambda: refserver.post("/control/event-types", {"reset": True})
            )
            await wait_for(lambda: seen == ["events"])

    run(body)


def test_max_age_floors_the_replay(refserver: RefServer) -> None:
    async def body() -> None:
        refserver.post("/control/emit", {"name": "alert.fired", "data": {"summary": "old"}})
        await anyio.sleep(2.5)
        refserver.post("/control/emit", {"name": "alert.fired", "data": {"summary": "new"}})
        async with connect(refserver, "auto") as client:
            # Floors between the two, with room for a slow connect on a busy machine.
            page = await call(
                client,
                "events/poll",
                {"name": "alert.fired", "arguments": {}, "cursor": "0", "maxAgeMs": 2000},
            )
        assert [e["data"]["summary"] for e in page["events"]] == ["new"]

    run(body)
