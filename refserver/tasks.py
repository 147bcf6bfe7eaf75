"""Tasks with an event source (docs/conformance.md case 49): the `deploy` tool and `tasks/get`.

The SDK defines the 2025-11-25 task types but dispatches no `tasks/*`, so an
extension (`io.modelcontextprotocol/tasks`, the 2026-07-28 home of tasks)
binds `tasks/get` and contributes the `deploy` tool. Every `deploy` call
creates a task, whether or not the request carries `params.task`, so a client
without task support can still get one; its `eventSource` names
`deploy.progress` with `input = {service}` and `initialCursor` = that type's
log head at creation, so a subscriber starting there sees exactly the
progress events emitted afterwards (the per-type cursor in
`refserver.eventlog` already means "after this sequence number").

The answer to `tools/call` is reshaped by a middleware rather than returned
by the tool: the SDK sieves every `tools/call` result into a CallToolResult
(on the 2025-11-25 wire always; on 2026-07-28 unless `resultType` is an
extension's), which would drop `task` and `eventSource`. The tool therefore
returns the CreateTaskResult body as structured content and the innermost
middleware, which sees the serialized result, swaps it in. The control routes
live in `refserver.tasks_control`.
"""

from __future__ import annotations

import collections
import copy
import json
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp import MCPError
from mcp.server import ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.extension import ToolBinding
from mcp.server.mcpserver import Context, Extension, MethodBinding
from mcp_types import CallToolResult, TextContent

from refserver import requestinfo
from refserver.eventlog import iso_now

if TYPE_CHECKING:
    from refserver.state import State

TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks"
TASK_EVENT = "deploy.progress"
DEPLOY_TOOL = "deploy"
STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
TERMINAL = frozenset({"completed", "failed", "cancelled"})
TASK_NOT_FOUND = -32602  # InvalidParams, as the 2025-11-25 spec answers an unknown taskId


@dataclass
class TaskRecord:
    task_id: str
    service: str
    status: str
    status_message: str | None
    created_at: str
    last_updated_at: str
    ttl: int | None  # ms from creation; None = kept until reset
    poll_interval: int | None
    event_source: dict[str, Any] | None
    origin: str  # "tools/call" or "control"
    augmented: bool  # the tools/call carried `params.task`
    born: float = field(default_factory=time.monotonic)

    def expired(self) -> bool:
        return self.ttl is not None and (time.monotonic() - self.born) * 1000 > self.ttl

    def wire(self) -> dict[str, Any]:
        """The Task object (2025-11-25), camelCase; `ttl` is always present (null allowed)."""
        task: dict[str, Any] = {"taskId": self.task_id, "status": self.status}
        if self.status_message is not None:
            task["statusMessage"] = self.status_message
        task.update(createdAt=self.created_at, lastUpdatedAt=self.last_updated_at, ttl=self.ttl)
        if self.poll_interval is not None:
            task["pollInterval"] = self.poll_interval
        return task

    def create_result(self) -> dict[str, Any]:
        """The CreateTaskResult body: `{task, eventSource?}`."""
        body: dict[str, Any] = {"task": self.wire()}
        if self.event_source is not None:
            body["eventSource"] = copy.deepcopy(self.event_source)
        return body


class TaskStore:
    """Tasks by id plus how often `tasks/get` asked for each id (unknown ids too)."""

    def __init__(self) -> None:
        self.by_id: dict[str, TaskRecord] = {}
        self.get_calls: collections.Counter[str] = collections.Counter()

    def clear(self) -> None:
        self.by_id.clear()
        self.get_calls.clear()

    def add(self, task: TaskRecord) -> TaskRecord:
        self.by_id[task.task_id] = task
        return task

    def find(self, task_id: str) -> TaskRecord | None:
        """The task, or None once unknown or past its ttl (then it is dropped)."""
        task = self.by_id.get(task_id)
        if task is not None and task.expired():
            del self.by_id[task_id]
            return None
        return task

    def all(self) -> list[TaskRecord]:
        return [t for t in list(self.by_id.values()) if self.find(t.task_id) is not None]

    def set_status(self, task_id: str, status: str, message: str | None) -> TaskRecord:
        """Any transition is allowed (a test may need odd ones); the message is replaced."""
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}")
        task = self.find(task_id)
        if task is None:
            raise KeyError(f"task {task_id!r}")
        task.status = status
        task.status_message = message
        task.last_updated_at = iso_now()
        return task


def new_deploy_task(
    state: State,
    service: str,
    *,
    origin: str,
    augmented: bool = False,
    ttl: int | None = None,
    poll_interval_ms: int | None = None,
    event_source: bool = True,
) -> TaskRecord:
    now = iso_now()
    source = None
    if event_source:
        source = {
            "name": TASK_EVENT,
            "input": {"service": service},
            # The head now: later emits get higher sequence numbers, earlier ones do not.
            "initialCursor": str(state.log.head(TASK_EVENT)),
        }
    task = TaskRecord(
        task_id=f"task_{secrets.token_hex(8)}",
        service=service,
        status="working",
        status_message=f"Deploying {service}",
        created_at=now,
        last_updated_at=now,
        ttl=ttl if ttl is not None else state.config.task_ttl_ms,
        poll_interval=(
            poll_interval_ms if poll_interval_ms is not None else state.config.task_poll_interval_ms
        ),
        event_source=source,
        origin=origin,
        augmented=augmented,
    )
    return state.tasks.add(task)


class GetTaskParams(types.RequestParams):
    task_id: str


class TasksExtension(Extension):
    identifier = TASKS_EXTENSION_ID

    def __init__(self, state: State) -> None:
        self.state = state

    def tools(self) -> list[ToolBinding]:
        description = (
            "Deploy a service. Answers a task (CreateTaskResult) whose eventSource names "
            f"{TASK_EVENT} events for that service; poll tasks/get for its status."
        )
        return [ToolBinding(self.deploy, kwargs={"name": DEPLOY_TOOL, "description": description})]

    def methods(self) -> list[MethodBinding]:
        return [MethodBinding("tasks/get", GetTaskParams, self.get_task)]

    async def deploy(self, service: str, ctx: Context) -> CallToolResult:
        raw = ctx.request_context.params
        requested = raw.get("task") if isinstance(raw, Mapping) else None
        ttl = requested.get("ttl") if isinstance(requested, Mapping) else None
        task = new_deploy_task(
            self.state,
            service,
            origin="tools/call",
            augmented=isinstance(requested, Mapping),
            ttl=ttl if isinstance(ttl, int) and not isinstance(ttl, bool) else None,
        )
        body = task.create_result()
        # Text too: what a client without task support shows (see task_result_middleware).
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(body))], structured_content=body
        )

    async def get_task(
        self, ctx: ServerRequestContext[Any, Any], params: GetTaskParams
    ) -> dict[str, Any]:
        store = self.state.tasks
        store.get_calls[params.task_id] += 1
        task = store.find(params.task_id)
        self.state.record(
            "taskGets",
            {
                "taskId": params.task_id,
                "found": task is not None,
                "status": task.status if task else None,
                "era": requestinfo.era(ctx),
                "principal": requestinfo.principal(ctx),
            },
        )
        if task is None:
            raise MCPError(
                code=TASK_NOT_FOUND, message="Task not found", data={"taskId": params.task_id}
            )
        return task.wire()


def task_result_middleware(state: State) -> Any:
    """Innermost SDK middleware: the deploy answer, plus the 2025-11-25 task advertisements."""

    async def tasks(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if not isinstance(result, dict):
            return result
        legacy = requestinfo.era(ctx) == "legacy"
        params = ctx.params if isinstance(ctx.params, Mapping) else {}
        if ctx.method == "tools/call" and params.get("name") == DEPLOY_TOOL:
            return create_task_wire(result, legacy=legacy)
        if legacy and ctx.method == "initialize":
            # 2025-11-25 `capabilities.tasks`: tools/call may be task-augmented.
            caps = result.setdefault("capabilities", {})
            caps["tasks"] = {"requests": {"tools": {"call": {}}}}
        if legacy and ctx.method == "tools/list" and isinstance(result.get("tools"), list):
            for tool in result["tools"]:
                if tool.get("name") == DEPLOY_TOOL:
                    tool["execution"] = {"taskSupport": "optional"}
        return result

    return tasks


def create_task_wire(result: dict[str, Any], *, legacy: bool) -> dict[str, Any]:
    """Swap a deploy CallToolResult for the CreateTaskResult body it carries.

    2026-07-28: tagged `resultType: "task"` (the value the SDK reserves for the
    tasks extension), which the SDK client accepts for `tools/call`; `_meta`
    (the serverInfo stamp) is kept. 2025-11-25: the SDK client validates every
    `tools/call` answer as a CallToolResult, so the text `content` stays
    alongside `task` (a CreateTaskResult reader ignores it). Failed calls (bad
    arguments) pass through unchanged.
    """
    body = result.get("structuredContent")
    if result.get("isError") or not isinstance(body, dict) or "task" not in body:
        return result
    wire = copy.deepcopy(body)
    if result.get("_meta") is not None:
        wire["_meta"] = result["_meta"]
    if legacy:
        wire["content"] = result.get("content", [])
    else:
        wire["resultType"] = "task"
    return wire
