"""Syncing a registered server: read what it declares, apply it, or back off.

A sync reads capabilities, every page of ``events/list`` and the hook
declarations through the one MCP client layer, under an overall deadline so a
hanging server never hangs the caller. The MCP conversation happens first and
outside any transaction; only the result is applied to the database
(``server_apply_snapshot``); a server that cannot be reached is retried with
backoff (``server_mark_unreachable``). Beat finds the servers due
(``servers_due_for_sync``) and a worker claims each before it syncs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from switchboard.actors import Actor
from switchboard.backoff import backoff
from switchboard.mcp import dialects
from switchboard.mcp.errors import McpCallError
from switchboard.models import EventType, HookDeclaration, McpServer, ServerStatus
from switchboard.services.audit import audit_record
from switchboard.services.server_block import server_block_refuse
from switchboard.services.server_dialects import dialect_apply_detection
from switchboard.services.server_discovery import (
    ServerSnapshot,
    fetch_snapshot,
    fetch_snapshot_sync,
)
from switchboard.services.server_notices import server_notice
from switchboard.signals import server_declarations_changed


@dataclass
class SyncChanges:
    event_types_added: list[str] = field(default_factory=list)
    event_types_removed: list[str] = field(default_factory=list)
    event_types_changed: list[str] = field(default_factory=list)
    hooks_added: list[str] = field(default_factory=list)
    hooks_removed: list[str] = field(default_factory=list)
    dialect: str | None = None  # the events dialect, when a sync changed it

    @property
    def any(self) -> bool:
        return any(vars(self).values())

    @property
    def declarations_changed(self) -> bool:
        return bool(self.hooks_added or self.hooks_removed)


def _canonical_hash(value: Any) -> str:
    return hashlib.sha256(
        json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def _next_retry(failures: int) -> timedelta:
    return timedelta(
        seconds=backoff(failures, base=settings.SERVER_RETRY_BASE, cap=settings.SERVER_RETRY_MAX)
    )


def server_sync(*, server: McpServer, actor: Actor) -> McpServer:
    """Fetch what the server declares (outside any transaction) and apply it."""

    server_block_refuse(server)
    headers = server.headers or {}
    try:
        snapshot = fetch_snapshot_sync(
            server_id=server.id,
            url=server.url,
            headers=headers,
            deadline=settings.SERVER_SYNC_DEADLINE,
        )
    except McpCallError as error:
        return server_mark_unreachable(server=server, error=error, actor=actor)
    return server_apply_snapshot(server=server, snapshot=snapshot, actor=actor)


async def server_sync_async(*, server: McpServer, actor: Actor) -> McpServer:
    """The same as ``server_sync`` for async callers (ASGI views)."""
    from asgiref.sync import sync_to_async

    server_block_refuse(server)
    try:
        snapshot = await fetch_snapshot(
            server_id=server.id,
            url=server.url,
            headers=server.headers or {},
            deadline=settings.SERVER_SYNC_DEADLINE,
        )
    except McpCallError as error:
        return await sync_to_async(server_mark_unreachable)(server=server, error=error, actor=actor)
    return await sync_to_async(server_apply_snapshot)(server=server, snapshot=snapshot, actor=actor)


@transaction.atomic
def server_mark_unreachable(*, server: McpServer, error: Any, actor: Actor) -> McpServer:
    server = McpServer.objects.select_for_update(no_key=True).get(pk=server.pk)
    was = server.status
    server.status = ServerStatus.UNREACHABLE
    server.last_error = error.category
    server.last_error_detail = str(error)[:500]
    server.sync_failures += 1
    server.next_sync_at = timezone.now() + _next_retry(server.sync_failures)
    server.save()
    if was != ServerStatus.UNREACHABLE or server.sync_failures == 1:
        audit_record(
            host_id=server.host_id,
            kind="server.unreachable",
            actor=actor,
            server_id=server.id,
            subject_type="server",
            subject_id=server.id,
            summary=f"Server {server.name} is unreachable ({error.category})",
            detail={
                "category": error.category,
                "code": getattr(error, "code", None),
                "retry_at": server.next_sync_at.isoformat(),
            },
        )
        server_notice(server=server, status="unreachable", reason=error.category)
    return server


def _apply_event_types(
    server: McpServer, descriptors: list[dict], changes: SyncChanges, now
) -> None:
    existing = {et.name: et for et in EventType.objects.filter(server=server)}
    seen = set()
    for descriptor in descriptors:
        name = descriptor.get("name")
        if not isinstance(name, str) or not name or name in seen:
            continue
        seen.add(name)
        values = {
            "description": descriptor.get("description") or "",
            "delivery": list(descriptor.get("delivery") or descriptor.get("deliveryModes") or []),
            "input_schema": descriptor.get("inputSchema") or {},
            "payload_schema": descriptor.get("payloadSchema") or {},
            "raw": descriptor,
            "removed_at": None,
        }
        current = existing.get(name)
        if current is None:
            EventType.objects.create(server=server, name=name, **values)
            changes.event_types_added.append(name)
            continue
        if current.removed_at is not None:
            changes.event_types_added.append(name)
        elif _canonical_hash(current.raw) != _canonical_hash(descriptor):
            changes.event_types_changed.append(name)
        for key, value in values.items():
            setattr(current, key, value)
        current.save()
    for name, current in existing.items():
        if name not in seen and current.removed_at is None:
            current.removed_at = now
            current.save(update_fields=["removed_at", "updated_at"])
            changes.event_types_removed.append(name)


def _apply_declarations(server: McpServer, declarations: list, changes: SyncChanges, now) -> None:
    existing = {d.hook_id: d for d in HookDeclaration.objects.filter(server=server)}
    seen = set()
    for declaration in declarations:
        seen.add(declaration.hook_id)
        current = existing.get(declaration.hook_id)
        if current is None:
            HookDeclaration.objects.create(
                server=server,
                hook_id=declaration.hook_id,
                event=declaration.event or "",
                priority=declaration.priority or "",
                raw=declaration.raw,
                valid=declaration.valid,
                problems=list(declaration.problems),
            )
            changes.hooks_added.append(declaration.hook_id)
        elif current.removed_at is not None:
            current.removed_at = None
            current.save(update_fields=["removed_at", "updated_at"])
            changes.hooks_added.append(declaration.hook_id)
    for hook_id, current in existing.items():
        if hook_id not in seen and current.removed_at is None:
            current.removed_at = now
            current.save(update_fields=["removed_at", "updated_at"])
            changes.hooks_removed.append(hook_id)


@transaction.atomic
def server_apply_snapshot(
    *, server: McpServer, snapshot: ServerSnapshot, actor: Actor
) -> McpServer:
    server = McpServer.objects.select_for_update(no_key=True).get(pk=server.pk)
    now = timezone.now()
    first_sync = server.last_synced_at is None
    was = server.status
    changes = SyncChanges()
    _apply_event_types(server, snapshot.event_types, changes, now)
    _apply_declarations(server, snapshot.declarations, changes, now)
    server.capabilities = snapshot.capabilities
    server.capability_sources = snapshot.sources
    server.conversation_events = bool(snapshot.capabilities.get("conversation_events"))
    dialect_before = server.events_dialect_detected
    dialect_apply_detection(server, dialects.detect(snapshot.events_locations))
    if server.events_dialect_detected != dialect_before and not first_sync:
        changes.dialect = server.events_dialect_detected
    server.protocol_version = snapshot.protocol_version
    if server.url:
        server.status = ServerStatus.ACTIVE
        server.next_sync_at = now + timedelta(seconds=settings.SERVER_RESYNC_INTERVAL)
    server.last_error = ""
    server.last_error_detail = ""
    server.sync_failures = 0
    server.last_synced_at = now
    server.save()
    if first_sync or changes.any:
        audit_record(
            host_id=server.host_id,
            kind="server.synced" if first_sync else "server.changed",
            actor=actor,
            server_id=server.id,
            subject_type="server",
            subject_id=server.id,
            summary=(
                f"Server {server.name} synced: {len(snapshot.event_types)} event types, "
                f"{len(snapshot.declarations)} hook declarations"
            )
            if first_sync
            else f"Server {server.name} changed what it declares",
            detail={**vars(changes), "sources": snapshot.sources},
        )
    if (
        changes.declarations_changed or changes.event_types_changed or changes.event_types_removed
    ) and not first_sync:
        server_declarations_changed.send(
            sender=McpServer,
            server=server,
            removed_hook_ids=changes.hooks_removed,
            added_hook_ids=changes.hooks_added,
        )
        server_notice(server=server, status=server.status, reason="declarations_changed")
    elif was != server.status:
        server_notice(server=server, status=server.status)
    return server


def servers_due_for_sync(*, limit: int = 50):
    """Servers whose (re)sync or retry time has come; served by server_due_sync_idx."""
    return (
        McpServer.objects.filter(
            deleted_at__isnull=True, blocked_at__isnull=True, next_sync_at__lte=timezone.now()
        )
        .exclude(url="")
        .order_by("next_sync_at")[:limit]
    )


def server_claim_for_sync(*, server_id: str) -> bool:
    """Push the due time forward atomically, so two workers never sync one server at once."""
    lease = timezone.now() + timedelta(seconds=settings.SERVER_SYNC_DEADLINE * 2 + 5)
    return (
        McpServer.objects.filter(pk=server_id, next_sync_at__lte=timezone.now()).update(
            next_sync_at=lease
        )
        == 1
    )
