"""McpSession's long-lived requests against the real reference server:
events/stream and listen, and the SDK's notification queue they rely on."""

from __future__ import annotations

import time

import anyio
import pytest

from switchboard.mcp import McpCallError, McpSession
from tests.mcp.conftest import RefServer

pytestmark = pytest.mark.processes


# --- events/stream -------------------------------------------------------------------


async def test_stream_delivers_notifications_until_terminated(
    refserver: RefServer, mode: str
) -> None:
    seen = []
    async with (
        McpSession(refserver.target(mode)) as s,
        s.stream(
            name="deploy.status", arguments={"environment": "prod"}, idle_timeout=10
        ) as stream,
    ):
        async for message in stream:
            seen.append(message)
            if message.kind == "active":
                refserver.post(
                    "/control/emit",
                    {
                        "name": "deploy.status",
                        "data": {"state": "rolling"},
                        "arguments": {"environment": "prod"},
                    },
                )
            elif message.kind == "event":
                refserver.post("/control/stream-error", {"name": "deploy.status"})
            elif message.kind == "error":
                refserver.post("/control/terminate", {"stream": True, "name": "deploy.status"})
    kinds = [m.kind for m in seen]
    assert kinds == ["active", "event", "error", "terminated"]
    assert seen[0].has_cursor and seen[0].truncated is False
    assert seen[1].event and seen[1].event.data == {"state": "rolling"} and seen[1].cursor
    assert seen[2].error and seen[2].error["code"] == -32603
    assert seen[3].error and seen[3].error["code"] == -32012
    assert stream.result is not None and stream.error is None
    assert {m.subscription_id for m in seen} == {stream.request_id}


async def test_stream_cancel_closes_the_request(refserver: RefServer, mode: str) -> None:
    async with McpSession(refserver.target(mode)) as s:
        async with s.stream(name="deploy.status") as stream:
            first = await stream.__anext__()
            assert first.kind == "active"
            assert len(refserver.get("/control/subscriptions")["streams"]) == 1
        # Leaving the block aborted the request; the server's handler was cancelled.
        for _ in range(50):
            if not refserver.get("/control/subscriptions")["streams"]:
                break
            await anyio.sleep(0.05)
        assert refserver.get("/control/subscriptions")["streams"] == []
        # The session is still usable afterwards.
        assert await s.list_all_events()


async def test_41_two_streams_on_one_session_are_routed_apart(refserver: RefServer) -> None:
    async with (
        McpSession(refserver.target("auto")) as s,
        s.stream(name="deploy.status", arguments={"environment": "prod"}) as prod,
        s.stream(name="deploy.status", arguments={"environment": "dev"}) as dev,
    ):
        assert (await prod.__anext__()).kind == "active"
        assert (await dev.__anext__()).kind == "active"
        refserver.post(
            "/control/emit",
            {"name": "deploy.status", "data": {"state": "x"}, "arguments": {"environment": "dev"}},
        )
        got = await dev.__anext__()
        assert got.kind == "event" and got.subscription_id == dev.request_id
        assert prod.request_id != dev.request_id
        with anyio.move_on_after(0.3):
            unexpected = await prod.__anext__()
            pytest.fail(f"prod stream got {unexpected}")


async def test_stream_idle_timeout(refserver: RefServer) -> None:
    async with (
        McpSession(refserver.target("auto")) as s,
        s.stream(name="deploy.status", idle_timeout=0.3) as stream,
    ):
        assert (await stream.__anext__()).kind == "active"
        started = time.monotonic()
        with pytest.raises(McpCallError) as caught:
            await stream.__anext__()
    assert caught.value.category == "timeout" and time.monotonic() - started < 2


async def test_errors_in_the_stream_body_are_not_wrapped(refserver: RefServer) -> None:
    with pytest.raises(ValueError, match="mine"):
        async with McpSession(refserver.target("auto")) as s, s.stream(name="deploy.status"):
            raise ValueError("mine")
    with pytest.raises(McpCallError):
        async with McpSession(refserver.target("auto")) as s, s.stream(name="alert.fired") as st:
            await st.__anext__()


async def test_stream_refused_raises_from_iteration(refserver: RefServer) -> None:
    async with McpSession(refserver.target("auto")) as s, s.stream(name="build.finished") as stream:
        with pytest.raises(McpCallError) as caught:
            async for _ in stream:
                pass
    assert caught.value.category == "mcp_error" and caught.value.code == -32014


async def test_listen_is_acknowledged_then_carries_events_list_changed(
    refserver: RefServer,
) -> None:
    """SEP-3415 §"Dynamic event types": the filter key the SDK does not know
    goes out as asked, the acknowledgement comes first and echoes it, and a
    catalogue change arrives on the same request, stamped with its id."""
    async with (
        McpSession(refserver.target("auto")) as s,
        s.listen(notifications={"eventsListChanged": True}, idle_timeout=10) as listen,
    ):
        ack = await listen.__anext__()
        assert ack.kind == "acknowledged"
        assert ack.params["notifications"] == {"eventsListChanged": True}
        assert ack.subscription_id == listen.request_id
        refserver.post("/control/event-types", {"reset": True})
        changed = await listen.__anext__()
        assert changed.kind == "list_changed"
        assert changed.subscription_id == listen.request_id
    [record] = refserver.received("listen")
    assert record["notifications"] == {"eventsListChanged": True}


async def test_listen_acknowledgement_without_the_field_is_visible(refserver: RefServer) -> None:
    refserver.post("/control/config", {"listen_acks_events": False})
    async with (
        McpSession(refserver.target("auto")) as s,
        s.listen(notifications={"eventsListChanged": True}, idle_timeout=10) as listen,
    ):
        ack = await listen.__anext__()
        assert ack.kind == "acknowledged"
        assert "eventsListChanged" not in ack.params["notifications"]


def test_the_sdk_notification_queue_is_deep_enough_for_many_streams() -> None:
    """The SDK drops the oldest notification when its per-method queue is
    full; switchboard.mcp.session deepens it (a private seam: this fails if
    the SDK renames it, instead of events being lost quietly)."""
    from mcp.client import session as sdk_session

    import switchboard.mcp.session  # noqa: F401 - applies the setting

    assert sdk_session._NOTIFICATION_QUEUE_SIZE >= 100_000
    assert "_NOTIFICATION_QUEUE_SIZE" in sdk_session.ClientSession.__aenter__.__code__.co_names
