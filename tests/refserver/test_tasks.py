"""Tasks with an event source (docs/conformance.md case 49): the deploy tool, tasks/get, control routes."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
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

TASK_KEYS = {
    "taskId",
    "status",
    "statusMessage",
    "createdAt",
    "lastUpdatedAt",
    "ttl",
    "pollInterval",
}


def emit_progress(refserver: RefServer, service: str, phase: str) -> dict[str, Any]:
    return refserver.post(
        "/control/emit",
        {
            "name": "deploy.progress",
            "data": {"service": service, "phase": phase},
            "arguments": {"service": service},
        },
    )


def tasks_by_id(refserver: RefServer) -> dict[str, dict[str, Any]]:
    return {t["taskId"]: t for t in refserver.get("/control/tasks")["tasks"]}


# -- the deploy tool -----------------------------------------------------------------


@pytest.mark.parametrize("augmented", [True, False], ids=["params.task", "plain"])
@pytest.mark.parametrize("mode", MODES)
def test_deploy_answers_a_task_with_an_event_source(
    refserver: RefServer, mode: str, augmented: bool
) -> None:
    emit_progress(refserver, "api", "before")
    emit_progress(refserver, "web", "before")
    params: dict[str, Any] = {"name": "deploy", "arguments": {"service": "api"}}
    if augmented:
        params["task"] = {"ttl": 60_000}

    async def body() -> None:
        async with connect(refserver, mode) as client:
            assert "deploy" in {t.name for t in (await client.list_tools()).tools}
            result = await call(client, "tools/call", params)
            task = result["task"]
            assert set(task) == TASK_KEYS
            assert task["status"] == "working" and task["statusMessage"] == "Deploying api"
            assert task["createdAt"] == task["lastUpdatedAt"]
            assert task["ttl"] == (60_000 if augmented else 3_600_000)
            assert task["pollInterval"] == 500
            assert result["eventSource"] == {
                "name": "deploy.progress",
                "input": {"service": "api"},
                "initialCursor": "2",
            }
            if mode == "auto":
                assert result["resultType"] == "task"
            else:
                # Kept so an SDK client validating a CallToolResult accepts it.
                assert json.loads(result["content"][0]["text"])["task"] == task
            got = await call(client, "tasks/get", {"taskId": task["taskId"]})
            assert {k: got[k] for k in TASK_KEYS} == task
        listed = tasks_by_id(refserver)[task["taskId"]]
        assert listed["augmented"] is augmented and listed["origin"] == "tools/call"
        assert listed["getCalls"] == 1
        (recorded,) = refserver.received("toolCalls")["toolCalls"]
        assert recorded["name"] == "deploy" and recorded["arguments"] == {"service": "api"}

    run(body)


def test_legacy_clients_see_the_task_capability_and_a_readable_text(refserver: RefServer) -> None:
    async def body() -> None:
        async with connect(refserver, "legacy") as client:
            tasks_caps = client.server_capabilities.tasks
            assert tasks_caps is not None and tasks_caps.requests is not None
            assert tasks_caps.requests.tools is not None and tasks_caps.requests.tools.call
            deploy = next(t for t in (await client.list_tools()).tools if t.name == "deploy")
            assert deploy.execution is not None and deploy.execution.task_support == "optional"
            # A client without task support still gets something it can read.
            plain = await client.call_tool("deploy", {"service": "db"})
            assert not plain.is_error
            assert json.loads(plain.content[0].text)["eventSource"]["input"] == {"service": "db"}
            bad = await client.call_tool("deploy", {})
            assert bad.is_error
        assert [t["service"] for t in refserver.get("/control/tasks")["tasks"]] == ["db"]

    run(body)


def test_the_2026_discover_result_lists_the_tasks_extension(refserver: RefServer) -> None:
    async def body() -> None:
        async with connect(refserver, "auto") as client:
            assert "io.modelcontextprotocol/tasks" in (client.server_capabilities.extensions or {})

    run(body)


# -- tasks/get ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_tasks_get_follows_status_changes_and_counts_calls(refserver: RefServer, mode: str) -> None:
    created = refserver.post("/control/tasks", {"service": "api", "poll_interval_ms": 50})
    task_id = created["task"]["taskId"]
    assert created["task"]["pollInterval"] == 50

    async def get() -> types.GetTaskResult:
        # The typed SDK request and result, as a task-aware client would use them.
        return await client.session.send_request(
            types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id)),
            types.GetTaskResult,
        )

    async def body() -> None:
        nonlocal client
        async with connect(refserver, mode) as client:
            first = await get()
            assert first.status == "working" and first.status_message == "Deploying api"
            await anyio.sleep(0.01)  # so lastUpdatedAt moves on
            refserver.post(
                "/control/tasks/status",
                {"taskId": task_id, "status": "input_required", "statusMessage": "approve?"},
            )
            second = await get()
            assert second.status == "input_required" and second.status_message == "approve?"
            assert second.last_updated_at > first.last_updated_at
            assert second.created_at == first.created_at
            changed = refserver.post(
                "/control/tasks/status", {"taskId": task_id, "status": "completed"}
            )
            assert changed["status"] == "completed" and "statusMessage" not in changed
            third = await get()
            assert third.status == "completed" and third.status_message is None

    client: Any = None
    run(body)
    assert tasks_by_id(refserver)[task_id]["getCalls"] == 3
    gets = refserver.received("taskGets")["taskGets"]
    assert [g["status"] for g in gets] == ["working", "input_required", "completed"]


@pytest.mark.parametrize("mode", MODES)
def test_an_unknown_task_is_invalid_params(refserver: RefServer, mode: str) -> None:
    async def body() -> None:
        async with connect(refserver, mode) as client:
            err = await expect_error(call(client, "tasks/get", {"taskId": "task_nope"}))
            assert err.code == -32602 and err.error.message == "Task not found"
            err = await expect_error(call(client, "tasks/get", {}))
            assert err.code == -32602  # no taskId at all

    run(body)
    assert refserver.get("/control/tasks")["unknownGetCalls"] == {"task_nope": 1}


def test_a_task_past_its_ttl_is_gone(refserver: RefServer) -> None:
    # 2 s, not less: connecting may take a few hundred ms on a loaded machine,
    # and the first tasks/get must still find the task (a 200 ms ttl ran out
    # before it in a clean-clone run).
    task_id = refserver.post("/control/tasks", {"service": "api", "ttl_ms": 2000})["task"]["taskId"]

    async def body() -> None:
        async with connect(refserver, "auto") as client:
            assert (await call(client, "tasks/get", {"taskId": task_id}))["ttl"] == 2000
            await anyio.sleep(2.2)  # the stimulus: the 2 s ttl runs out
            err = await expect_error(call(client, "tasks/get", {"taskId": task_id}))
            assert err.code == -32602

    run(body)
    assert refserver.get("/control/tasks")["tasks"] == []


# -- initialCursor ----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_initial_cursor_replays_only_what_came_after_the_task(
    refserver: RefServer, mode: str
) -> None:
    async def body() -> None:
        async with connect(refserver, mode) as client:
            await anyio.to_thread.run_sync(lambda: emit_progress(refserver, "api", "old-1"))
            await anyio.to_thread.run_sync(lambda: emit_progress(refserver, "api", "old-2"))
            created = await call(
                client,
                "tools/call",
                {"name": "deploy", "arguments": {"service": "api"}, "task": {}},
            )
            source = created["eventSource"]
            for service, phase in [("api", "build"), ("web", "other"), ("api", "rollout")]:
                await anyio.to_thread.run_sync(
                    lambda s=service, p=phase: emit_progress(refserver, s, p)
                )
            page = await call(
                client,
                "events/poll",
                {
                    "name": source["name"],
                    "arguments": source["input"],
                    "cursor": source["initialCursor"],
                },
            )
            assert [e["data"]["phase"] for e in page["events"]] == ["build", "rollout"]
            assert page["truncated"] is False and page["hasMore"] is False
            # Nothing new since: the returned cursor is a clean resume point.
            again = await call(
                client,
                "events/poll",
                {"name": source["name"], "arguments": source["input"], "cursor": page["cursor"]},
            )
            assert again["events"] == []
            err = await expect_error(
                call(client, "events/poll", {"name": "deploy.progress", "arguments": {}})
            )
            assert err.code == -32602  # service is required

    run(body)


def test_initial_cursor_replays_on_a_stream_too(refserver: RefServer) -> None:
    events: list[dict[str, Any]] = []

    async def on_event(params: StreamParams) -> None:
        events.append(params.model_dump(by_alias=True))

    class EventsClient(ClientExtension):
        identifier = EXT_EVENTS

        def notifications(self) -> list[NotificationBinding[Any]]:
            return [
                NotificationBinding(
                    method="notifications/events/event", params_type=StreamParams, handler=on_event
                )
            ]

    emit_progress(refserver, "api", "old")
    source = refserver.post("/control/tasks", {"service": "api"})["eventSource"]
    emit_progress(refserver, "api", "replayed")

    async def body() -> None:
        async with connect(refserver, "auto", extensions=[EventsClient()]) as client:

            async def open_stream() -> None:
                await call(
                    client,
                    "events/stream",
                    {
                        "name": source["name"],
                        "arguments": source["input"],
                        "cursor": source["initialCursor"],
                    },
                )

            async with anyio.create_task_group() as tg:
                tg.start_soon(open_stream)
                await wait_for(lambda: len(events) == 1)
                await anyio.to_thread.run_sync(lambda: emit_progress(refserver, "api", "live"))
                await wait_for(lambda: len(events) == 2)
                tg.cancel_scope.cancel()
        assert [e["data"]["phase"] for e in events] == ["replayed", "live"]

    run(body)


# -- control routes -----------------------------------------------------------------------------


def test_task_control_routes_validate_and_reset_clears(refserver: RefServer) -> None:
    bare = refserver.post("/control/tasks", {"service": "api", "event_source": False})
    assert "eventSource" not in bare and bare["task"]["status"] == "working"
    refserver.post("/control/tasks", {}, expect=400)
    refserver.post("/control/tasks", {"service": "api", "poll_interval_ms": "soon"}, expect=400)
    task_id = bare["task"]["taskId"]
    refserver.post("/control/tasks/status", {"taskId": task_id, "status": "done"}, expect=400)
    refserver.post("/control/tasks/status", {"taskId": "task_x", "status": "failed"}, expect=404)
    refserver.post("/control/config", {"task_poll_interval_ms": 1500})
    assert refserver.post("/control/tasks", {"service": "web"})["task"]["pollInterval"] == 1500
    assert len(refserver.get("/control/tasks")["tasks"]) == 2

    refserver.post("/control/reset")
    assert refserver.get("/control/tasks") == {"tasks": [], "unknownGetCalls": {}}

    async def body() -> None:
        async with connect(refserver, "legacy") as client:
            err = await expect_error(call(client, "tasks/get", {"taskId": task_id}))
            assert err.code == -32602

    run(body)
