"""Control routes for tasks: make one without MCP, move its status, list them.

A client test hands a task to the code under test without calling a tool
(`POST /control/tasks`), then drives its status (`/control/tasks/status`)
and checks that `tasks/get` kept being asked (`GET /control/tasks`).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from refserver.control import BadRequest, _body, guarded
from refserver.state import State
from refserver.tasks import new_deploy_task


def _optional_int(body: dict[str, Any], key: str) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadRequest(f"{key} must be a non-negative integer")
    return value


def build_task_routes(state: State) -> list[Route]:
    async def tasks(request: Request) -> JSONResponse:
        if request.method == "POST":
            body = await _body(request)
            service = body.get("service")
            if not isinstance(service, str) or not service:
                raise BadRequest("service is required")
            task = new_deploy_task(
                state,
                service,
                origin="control",
                ttl=_optional_int(body, "ttl_ms"),
                poll_interval_ms=_optional_int(body, "poll_interval_ms"),
                event_source=bool(body.get("event_source", True)),
            )
            return JSONResponse(task.create_result())
        described = []
        for task in state.tasks.all():
            entry = {**task.wire(), "getCalls": state.tasks.get_calls[task.task_id]}
            if task.event_source is not None:
                entry["eventSource"] = task.event_source
            entry.update(service=task.service, origin=task.origin, augmented=task.augmented)
            described.append(entry)
        known = {t["taskId"] for t in described}
        unknown = {k: n for k, n in state.tasks.get_calls.items() if k not in known}
        return JSONResponse({"tasks": described, "unknownGetCalls": unknown})

    async def status(request: Request) -> JSONResponse:
        body = await _body(request)
        task_id = body.get("taskId")
        if not isinstance(task_id, str):
            raise BadRequest("taskId is required")
        message = body.get("statusMessage")
        if message is not None and not isinstance(message, str):
            raise BadRequest("statusMessage must be a string")
        # ValueError (unknown status) -> 400, KeyError (unknown task) -> 404 via guarded().
        task = state.tasks.set_status(task_id, str(body.get("status")), message)
        return JSONResponse(task.wire())

    return [
        Route("/control/tasks", guarded(tasks), methods=["GET", "POST"]),
        Route("/control/tasks/status", guarded(status), methods=["POST"]),
    ]
