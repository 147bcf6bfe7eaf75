"""Running a thread-scoped capability refresh, once due, in a Celery task.

1. Claim the ``scheduled`` row (conditional update: a second copy of the
   task finds nothing to do).
2. List tools and resources on every server of the thread, concurrently,
   under one deadline, with the thread id in each request's ``_meta``; the
   MCP conversation happens outside any transaction.
3. In one transaction: compare with each server's last snapshot, store the
   new one, and (for a refresh, not a baseline) tell the host with a
   ``thread.capabilities_changed`` delivery and the activity feed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import anyio
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from consent.models import Grant
from hooks.models import (
    RefreshKind,
    RefreshStatus,
    RefreshTrigger,
    ThreadRefresh,
    ThreadSnapshot,
    ThreadState,
)
from hooks.services.threads import thread_refresh_request, thread_servers
from outbox.emit import host_event_emit
from switchboard.actors import Actor
from switchboard.mcp import McpCallError, McpSession, McpTarget, run_sync, thread_meta
from switchboard.models import McpServer, User
from switchboard.selectors.mcp_targets import mcp_targets_for
from switchboard.services.audit import audit_record

log = logging.getLogger(__name__)

# JSON-RPC "method not found": a server without tools or resources.
_METHOD_NOT_FOUND = -32601


@dataclass
class ServerLists:
    tools: list[str] = field(default_factory=list)
    resources: list[str] = field(default_factory=list)
    error: str | None = None


async def _list_one(target: McpTarget, thread_id: str) -> ServerLists:
    meta = thread_meta(thread_id)
    out = ServerLists()
    try:
        async with McpSession(target) as session, anyio.create_task_group() as group:

            async def tools() -> None:
                try:
                    out.tools = sorted({t.name for t in await session.list_tools(meta=meta)})
                except McpCallError as error:
                    if error.code != _METHOD_NOT_FOUND:
                        raise

            async def resources() -> None:
                try:
                    listed = await session.list_resources(meta=meta)
                    out.resources = sorted({str(r.uri) for r in listed})
                except McpCallError as error:
                    if error.code != _METHOD_NOT_FOUND:
                        raise

            group.start_soon(tools)
            group.start_soon(resources)
    except McpCallError as error:
        return ServerLists(error=error.category)
    except BaseExceptionGroup as group_error:  # both calls failed
        first = next((e for e in group_error.exceptions if isinstance(e, McpCallError)), None)
        if first is None:
            raise
        return ServerLists(error=first.category)
    return out


async def _list_all(targets: dict[str, McpTarget], thread_id: str, deadline: float) -> dict:
    results: dict[str, ServerLists] = {}

    async def one(server_id: str, target: McpTarget) -> None:
        results[server_id] = await _list_one(target, thread_id)

    with anyio.move_on_after(deadline):
        async with anyio.create_task_group() as group:
            for server_id, target in targets.items():
                group.start_soon(one, server_id, target)
    for server_id in targets:
        results.setdefault(server_id, ServerLists(error="timeout"))
    return results


def _claim(refresh_id: str) -> ThreadRefresh | None:
    now = timezone.now()
    won = ThreadRefresh.objects.filter(
        pk=refresh_id, status=RefreshStatus.SCHEDULED, due_at__lte=now
    ).update(status=RefreshStatus.RUNNING, started_at=now, updated_at=now)
    if won != 1:
        return None
    refresh = ThreadRefresh.objects.select_related("user").get(pk=refresh_id)
    if refresh.kind == RefreshKind.REFRESH:
        ThreadState.objects.filter(thread_id=refresh.thread_id).update(last_refresh_started_at=now)
    return refresh


def _targets(refresh: ThreadRefresh, servers: list[McpServer]) -> dict[str, McpTarget]:
    return mcp_targets_for(user_id=refresh.user_id, servers=servers)


def _consented_server_ids(user_id: str | None, server_ids: list[str]) -> set[str]:
    """Servers the user has any live grant for (any scope)."""
    if not user_id:
        return set()

    return set(
        Grant.objects.live()
        .filter(user_id=user_id, server_id__in=server_ids)
        .values_list("server_id", flat=True)
    )


def thread_refresh_run(*, refresh_id: str) -> str:
    """Run one due refresh (a Celery task calls this). Safe to call twice:
    only the caller that moves the row from scheduled to running does the work."""
    refresh = _claim(refresh_id)
    if refresh is None:
        return "skipped"
    server_ids = thread_servers(host_id=refresh.host_id, thread_id=refresh.thread_id) or []
    servers = list(
        McpServer.objects.filter(
            host_id=refresh.host_id,
            pk__in=server_ids,
            deleted_at__isnull=True,
            blocked_at__isnull=True,
        )
    )
    if refresh.kind == RefreshKind.BASELINE:
        have = set(
            ThreadSnapshot.objects.filter(thread_id=refresh.thread_id).values_list(
                "server_id", flat=True
            )
        )
        servers = [s for s in servers if s.id not in have]
    targets = _targets(refresh, [s for s in servers if s.url])  # ORM before the event loop
    try:
        fetched = (
            run_sync(
                lambda: _list_all(targets, refresh.thread_id, settings.THREAD_REFRESH_DEADLINE)
            )
            if targets
            else {}
        )
    except Exception:
        log.exception("thread refresh %s failed", refresh.id)
        return _refresh_fail(refresh=refresh, reason="internal_error")
    for server in servers:
        if not server.url:
            fetched[server.id] = ServerLists(error="host_managed")
    return _refresh_apply(refresh=refresh, servers=servers, fetched=fetched)


def _refresh_fail(*, refresh: ThreadRefresh, reason: str) -> str:
    ThreadRefresh.objects.filter(pk=refresh.pk, status=RefreshStatus.RUNNING).update(
        status=RefreshStatus.FAILED, finished_at=timezone.now(), errors={"_refresh": reason}
    )
    audit_record(
        host_id=refresh.host_id,
        kind="thread.refresh_failed",
        actor=Actor.system("thread refresh"),
        user=refresh.user,
        subject_type="thread_refresh",
        subject_id=refresh.id,
        summary=f"Capability refresh of thread {refresh.thread_id[:80]} failed ({reason})",
        detail={"thread_id": refresh.thread_id, "reason": reason},
    )
    return RefreshStatus.FAILED


def _diff(before: list[str] | None, after: list[str]) -> tuple[list[str], list[str]]:
    old = set(before or [])
    new = set(after)
    return sorted(new - old), sorted(old - new)


@transaction.atomic
def _refresh_apply(
    *, refresh: ThreadRefresh, servers: list[McpServer], fetched: dict[str, ServerLists]
) -> str:
    now = timezone.now()
    baseline = refresh.kind == RefreshKind.BASELINE
    consented = _consented_server_ids(refresh.user_id, [s.id for s in servers])
    snapshots = {
        s.server_id: s
        for s in ThreadSnapshot.objects.select_for_update(no_key=True).filter(
            thread_id=refresh.thread_id, server_id__in=[s.id for s in servers]
        )
    }
    changes: list[dict[str, Any]] = []
    errors: dict[str, str] = {}
    for server in servers:
        lists = fetched.get(server.id) or ServerLists(error="timeout")
        snapshot = snapshots.get(server.id)
        entry: dict[str, Any] = {
            "server": server.id,
            "name": server.name,
            "tools_added": [],
            "tools_removed": [],
            "resources_added": [],
            "resources_removed": [],
            "consented": server.id in consented,
        }
        if lists.error is not None:
            errors[server.id] = lists.error
            entry["error"] = lists.error
            changes.append(entry)
            continue
        if baseline and snapshot is not None:
            continue  # a refresh got there first; its snapshot is newer
        entry["tools_added"], entry["tools_removed"] = _diff(
            snapshot.tools if snapshot else None, lists.tools
        )
        entry["resources_added"], entry["resources_removed"] = _diff(
            snapshot.resources if snapshot else None, lists.resources
        )
        if snapshot is None:
            entry["first_snapshot"] = True
            ThreadSnapshot.objects.create(
                host_id=refresh.host_id,
                thread_id=refresh.thread_id,
                server=server,
                tools=lists.tools,
                resources=lists.resources,
                taken_at=now,
            )
        else:
            snapshot.tools, snapshot.resources, snapshot.taken_at = (
                lists.tools,
                lists.resources,
                now,
            )
            snapshot.save(update_fields=["tools", "resources", "taken_at", "updated_at"])
        # Tools newly offered by a server the user never consented to are
        # reported, but flagged so the host can hold them back.
        entry["flagged_tools"] = [] if entry["consented"] else list(entry["tools_added"])
        changes.append(entry)
    refresh.status = RefreshStatus.COMPLETED
    refresh.finished_at = now
    refresh.server_ids = [s.id for s in servers]
    refresh.changes = changes
    refresh.errors = errors
    refresh.save(
        update_fields=["status", "finished_at", "server_ids", "changes", "errors", "updated_at"]
    )
    if not baseline:
        _report(refresh, changes)
    return refresh.status


def _report(refresh: ThreadRefresh, changes: list[dict[str, Any]]) -> None:
    """Tell the host (outbox, same transaction) and the activity feed."""
    data = {
        "thread_id": refresh.thread_id,
        "servers": [
            {
                key: entry[key]
                for key in (
                    "server",
                    "tools_added",
                    "tools_removed",
                    "resources_added",
                    "resources_removed",
                    "consented",
                    "flagged_tools",
                    "error",
                    "first_snapshot",
                )
                if key in entry
            }
            for entry in changes
        ],
    }

    host_event_emit(host_id=refresh.host_id, type="thread.capabilities_changed", data=data)
    added = sum(len(e["tools_added"]) + len(e["resources_added"]) for e in changes)
    removed = sum(len(e["tools_removed"]) + len(e["resources_removed"]) for e in changes)
    flagged = sum(len(e.get("flagged_tools", [])) for e in changes)
    summary = (
        f"Thread {refresh.thread_id[:80]} refreshed on {len(changes)} server(s): "
        f"{added} added, {removed} removed"
        + (f", {flagged} new tool(s) from servers without consent" if flagged else "")
        + (f", {len(refresh.errors)} failed" if refresh.errors else "")
    )
    audit_record(
        host_id=refresh.host_id,
        kind="thread.capabilities_changed",
        actor=Actor.system("thread refresh"),
        user=refresh.user,
        subject_type="thread_refresh",
        subject_id=refresh.id,
        summary=summary,
        detail={**data, "signals": refresh.signals, "trigger": refresh.trigger},
    )


# --- the sweep ----------------------------------------------------------------------


def refreshes_due(*, limit: int = 100) -> list[str]:
    """Scheduled refreshes that are due (their task may have been lost)."""
    return list(
        ThreadRefresh.objects.filter(status=RefreshStatus.SCHEDULED, due_at__lte=timezone.now())
        .order_by("due_at")
        .values_list("id", flat=True)[:limit]
    )


def refreshes_recover_lost() -> int:
    """Running refreshes whose worker died (past the lease) fail, and the
    thread gets a new refresh so the host still hears about it."""
    cutoff = timezone.now() - timedelta(seconds=settings.THREAD_REFRESH_LEASE)
    lost = list(
        ThreadRefresh.objects.filter(status=RefreshStatus.RUNNING, started_at__lt=cutoff).values(
            "id", "host_id", "thread_id", "user_id", "kind"
        )
    )
    count = 0
    for row in lost:
        won = ThreadRefresh.objects.filter(pk=row["id"], status=RefreshStatus.RUNNING).update(
            status=RefreshStatus.FAILED,
            finished_at=timezone.now(),
            errors={"_refresh": "lease_expired"},
        )
        if won and row["kind"] == RefreshKind.REFRESH:
            user = User.objects.filter(pk=row["user_id"]).first() if row["user_id"] else None
            thread_refresh_request(
                host_id=row["host_id"],
                thread_id=row["thread_id"],
                user=user,
                trigger=RefreshTrigger.API,
                actor=Actor.system("thread refresh recovery"),
            )
        count += won
    return count
