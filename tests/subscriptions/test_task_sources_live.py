"""Conformance case 49 (docs/conformance.md, task event sources) against the
reference server, with real processes: daphne, the Celery worker and beat
(which ask ``tasks/get``), and a host endpoint that verifies what it
receives. The host side is played as a host plays it: a task-augmented
``tools/call`` over MCP, then ``POST /api/v1/tasks``."""

from __future__ import annotations

import time
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from subscriptions.models import Subscription, TaskWatch
from tests.subscriptions.support import reference_server_for_alice, wait_for

pytestmark = pytest.mark.processes

EVENT = "deploy.progress"


class AnyResult(types.Result):
    model_config = types.Result.model_config | {"extra": "allow"}


@pytest.fixture
def ref_server(live, tpersonas, refserver, host_receiver):
    return reference_server_for_alice(tpersonas, refserver, host_receiver, [EVENT])


def start_deploy(refserver, service: str) -> dict[str, Any]:
    """The host's task-augmented tools/call; the CreateTaskResult as a dict."""

    async def call() -> dict[str, Any]:
        async with Client(refserver.mcp_url) as client:
            params = types.CallToolRequestParams(
                name="deploy", arguments={"service": service}, task=types.TaskMetadata(ttl=60_000)
            )
            result = await client.session.send_request(
                types.CallToolRequest(params=params), AnyResult
            )
            return result.model_dump(by_alias=True, exclude_none=True)

    return anyio.run(call)


def hand_over(tpersonas, server, created: dict[str, Any]) -> dict[str, Any]:
    task = created["task"]
    answer = tpersonas.acme_api.post(
        "/tasks",
        json={
            "user": "alice",
            "server": server.id,
            "task_id": task["taskId"],
            "poll_interval_ms": task.get("pollInterval"),
            "event_source": created["eventSource"],
        },
    )
    assert answer.status_code == 201, answer.content
    return answer.json()


def emit(refserver, service: str, step: str) -> dict[str, Any]:
    return refserver.control(
        "POST",
        "emit",
        {
            "name": EVENT,
            "data": {"service": service, "step": step},
            "arguments": {"service": service},
        },
    )


def get_calls(refserver, task_id: str) -> int:
    tasks = refserver.control("GET", "tasks")["tasks"]
    return next(t["getCalls"] for t in tasks if t["taskId"] == task_id)


def set_status(refserver, task_id: str, status: str, message: str | None = None) -> None:
    body = {"taskId": task_id, "status": status, **({"statusMessage": message} if message else {})}
    refserver.control("POST", "tasks/status", body)


def forwarded_steps(host_receiver) -> list[str]:
    return [r["data"]["event"]["data"]["step"] for r in host_receiver.accepted("event.received")]


def test_49_the_event_source_is_followed_from_its_initial_cursor_until_the_task_ends(
    ref_server, tpersonas, refserver, host_receiver
):
    created = start_deploy(refserver, "api")
    task_id = created["task"]["taskId"]
    source = created["eventSource"]
    assert source["name"] == EVENT and source["input"] == {"service": "api"}
    # Said before the console subscribed: only initialCursor can bring it.
    emit(refserver, "api", "before-subscribe")
    emit(refserver, "web", "another-service")  # another task's input: never ours
    watch = hand_over(tpersonas, ref_server, created)
    assert watch["subscription"]["cursor"] == source["initialCursor"]

    wait_for(lambda: "before-subscribe" in forwarded_steps(host_receiver), timeout=30)
    subscribe = refserver.control("GET", "received?kinds=subscribe")["subscribe"][0]
    assert subscribe["arguments"] == {"service": "api"}  # arguments = input
    assert subscribe["cursor"] == source["initialCursor"]  # cursor = initialCursor
    emit(refserver, "api", "building")
    wait_for(lambda: "building" in forwarded_steps(host_receiver), timeout=30)
    assert forwarded_steps(host_receiver) == ["before-subscribe", "building"]

    # The task's status comes from tasks/get.
    set_status(refserver, task_id, "input_required", "approve the rollout")
    wait_for(
        lambda: TaskWatch.objects.filter(pk=watch["id"], status="input_required").exists(),
        timeout=30,
        message="input_required seen through tasks/get",
    )
    # Not terminal: asked again on the task's pollInterval.
    calls = get_calls(refserver, task_id)
    wait_for(lambda: get_calls(refserver, task_id) > calls, timeout=30, message="asked again")
    sub_id = watch["subscription"]["id"]
    assert Subscription.objects.get(pk=sub_id).status == "active"  # not terminal: goes on

    set_status(refserver, task_id, "completed", "deployed")
    ended = wait_for(
        lambda: TaskWatch.objects.filter(pk=watch["id"], ended_at__isnull=False).first(),
        timeout=30,
        message="the watch ended with the task",
    )
    assert ended.status == "completed" and ended.status_message == "deployed"
    assert ended.next_check_at is None
    sub = Subscription.objects.get(pk=sub_id)
    assert sub.status == "revoked"
    updates = wait_for(
        lambda: [
            r
            for r in host_receiver.accepted("subscription.updated")
            if r["data"]["status"] == "revoked"
        ],
        timeout=30,
    )
    assert updates[0]["data"]["reason"] == "task_completed"
    # Unsubscribed on the server: what the source says now reaches nobody.
    wait_for(lambda: not refserver.control("GET", "subscriptions")["subscriptions"], timeout=30)
    assert emit(refserver, "api", "after-the-end")["subscriptions"] == []
    # And tasks/get is no longer asked: an absence has no event to wait for,
    # so look for a bounded while, six poll intervals and six beat ticks.
    calls = get_calls(refserver, task_id)
    time.sleep(3)
    assert get_calls(refserver, task_id) == calls

    api = tpersonas.acme_api.get(f"/tasks/{watch['id']}").json()
    assert api["status"] == "completed" and api["subscription"]["status"] == "revoked"


def test_49_a_failed_subscription_never_fails_the_task_and_tasks_get_goes_on(
    ref_server, tpersonas, refserver, host_receiver
):
    # The server refuses every events/subscribe for this test.
    refserver.control(
        "POST",
        "behaviour",
        {
            "method": "events/subscribe",
            "fail": "error",
            "times": 100,
            "error": {"code": -32012, "message": "Forbidden", "data": {"reason": "not_allowed"}},
        },
    )
    created = start_deploy(refserver, "api")
    task_id = created["task"]["taskId"]
    watch = hand_over(tpersonas, ref_server, created)
    sub = wait_for(
        lambda: Subscription.objects.filter(
            pk=watch["subscription"]["id"], status="failed"
        ).first(),
        timeout=30,
        message="the server refused the subscription",
    )
    assert sub.last_error
    # The task is still watched, and tasks/get still asked, after the failure.
    calls = get_calls(refserver, task_id)
    wait_for(lambda: get_calls(refserver, task_id) >= calls + 2, timeout=30)
    assert TaskWatch.objects.get(pk=watch["id"]).status == "working"

    set_status(refserver, task_id, "failed", "rollout aborted")
    ended = wait_for(
        lambda: TaskWatch.objects.filter(pk=watch["id"], ended_at__isnull=False).first(),
        timeout=30,
    )
    # The task's own status, from tasks/get, not the subscription's.
    assert ended.status == "failed" and ended.status_message == "rollout aborted"
    assert Subscription.objects.get(pk=sub.pk).status == "failed"  # left as it was
