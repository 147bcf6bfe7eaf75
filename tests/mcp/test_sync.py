"""The synchronous façade used by Celery tasks."""

from __future__ import annotations

import threading

import pytest

from switchboard.mcp import McpCallError, McpSession, McpSyncClient, run_sync, with_session
from tests.mcp.conftest import RefServer

pytestmark = pytest.mark.processes


def offered_types(refserver: RefServer) -> list[dict]:
    """The reference server's catalog, as its control surface lists it."""
    return refserver.get("/control/event-types")["types"]


def test_with_session_runs_several_calls_on_one_connection(refserver: RefServer) -> None:
    async def read(s: McpSession):
        return await s.capabilities(), await s.list_all_events()

    caps, events = with_session(refserver.target("legacy"), read)
    assert caps.sources["events"] == "experimental"
    assert len(events) == len(offered_types(refserver))
    connects = [r for r in refserver.received("requests") if r["method"] == "initialize"]
    assert len(connects) == 1


def test_sync_client_opens_a_fresh_session_per_call(refserver: RefServer) -> None:
    client = McpSyncClient(refserver.target("auto"))
    reply = client.user_message(message_id="m1", content="tea please")
    tools = client.list_tools(meta={"threadId": "t"})
    assert reply.context and any(t.name == "echo" for t in tools)
    discovers = [r for r in refserver.received("requests") if r["method"] == "server/discover"]
    assert len(discovers) == 2  # one connect per call: nothing is shared
    assert "Authorization" in repr(client) and "s3cr3t" not in repr(client)


def test_errors_cross_the_sync_boundary_unchanged(refserver: RefServer) -> None:
    client = McpSyncClient(refserver.target("auto"))
    with pytest.raises(McpCallError) as caught:
        client.poll(name="no.such.event")
    assert caught.value.category == "mcp_error" and caught.value.code == -32011


async def test_run_sync_inside_a_running_loop_uses_a_worker_thread(refserver: RefServer) -> None:
    threads: list[str] = []

    async def work() -> int:
        threads.append(threading.current_thread().name)
        async with McpSession(refserver.target("auto")) as s:
            return len(await s.list_all_events())

    assert run_sync(work) == len(offered_types(refserver))
    assert threads == ["switchboard-mcp-sync"]


def test_run_sync_without_a_loop_stays_in_this_thread() -> None:
    async def name() -> str:
        return threading.current_thread().name

    assert run_sync(name) == threading.current_thread().name
