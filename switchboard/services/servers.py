"""The MCP server registry: register, sync what servers declare, update, delete.

A sync reads capabilities, every page of ``events/list`` and the hook
declarations through the one MCP client layer, under an overall deadline so a
hanging server never hangs the caller. The MCP conversation happens first and
outside any transaction; only the result is applied to the database.
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
from switchboard.broadcast import broadcast_topics
from switchboard.errors import Invalid
from switchboard.mcp import dialects
from switchboard.mcp.errors import McpCallError
from switchboard.mcp.netguard import BlockedTarget, check_url
from switchboard.models import (
    EventsDialectChoice,
    EventType,
    HookDeclaration,
    Host,
    McpServer,
    ServerStatus,
    Trust,
)
from switchboard.services.audit import audit_record
from switchboard.services.server_block import server_block_refuse
from switchboard.services.server_dialects import dialect_apply_detection
from switchboard.services.server_discovery import (
    ServerSnapshot,
    fetch_snapshot,
    fetch_snapshot_sync,
    snapshot_from_declared_capabilities,
)
from switchboard.services.server_notices import server_notice
from switchboard.signals import (
    server_declarations_changed,
    server_registration_changed,
    server_retiring,
)


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


def _validate_headers(headers: dict[str, str] | None) -> dict[str, str] | None:
    if headers is None:
        return None
    for name, value in headers.items():
        if not name or any(c in name for c in " :\r\n") or "\n" in value or "\r" in value:
            raise Invalid(f"header {name!r} is not a valid HTTP header", field="headers")
    return headers


def _check_outbound_url(url: str) -> None:
    """The outbound address rules (``netguard``), for a registration or a change of it."""
    try:
        check_url(url)
    except BlockedTarget as blocked:
        raise Invalid(
            f"url is not allowed: {blocked}", field="url", code="blocked_target"
        ) from None


def _next_retry(failures: int) -> timedelta:
    return timedelta(
        seconds=backoff(failures, base=settings.SERVER_RETRY_BASE, cap=settings.SERVER_RETRY_MAX)
    )


def _server_updated(server: McpServer, *, status: str, reason: str = "") -> None:
    """Tell the host (outbox) and the staff pages that a server changed."""

    server_notice(server=server, status=status, reason=reason)


def server_register(
    *,
    host: Host,
    name: str,
    actor: Actor,
    url: str | None = None,
    headers: dict[str, str] | None = None,
    trust: str = Trust.UNTRUSTED,
    capabilities: dict[str, Any] | None = None,
    sync: bool = True,
) -> McpServer:
    """Register a server; with a URL, sync it now (bounded by
    SERVER_SYNC_DEADLINE), else take the capabilities the host declared for a
    server it reaches itself (e.g. over stdio)."""
    if not url and capabilities is None:
        raise Invalid(
            "give the server's url, or its capabilities if the host reaches it itself", field="url"
        )
    server = _server_create(
        host=host,
        name=name,
        actor=actor,
        url=url,
        headers=headers,
        trust=trust,
        host_managed=not url,
    )
    if not url:
        return server_apply_snapshot(
            server=server,
            snapshot=snapshot_from_declared_capabilities(server.id, capabilities or {}),
            actor=actor,
        )
    if sync:
        # Outside the creating transaction: the conversation may take seconds.
        return server_sync(server=server, actor=actor)
    return server


@transaction.atomic
def _server_create(
    *,
    host: Host,
    name: str,
    actor: Actor,
    url: str | None,
    headers: dict[str, str] | None,
    trust: str,
    host_managed: bool,
) -> McpServer:
    if not name or len(name) > 200:
        raise Invalid("name must be 1–200 characters", field="name")
    if not url and not host_managed:
        raise Invalid(
            "give the server's url, or its capabilities if the host reaches it itself", field="url"
        )
    if trust not in Trust.values:
        raise Invalid("trust must be trusted or untrusted", field="trust")
    if url:
        _check_outbound_url(url)
    server = McpServer.objects.create(
        host=host,
        name=name,
        url=url or "",
        headers=_validate_headers(headers),
        trust=trust,
        status=ServerStatus.HOST_MANAGED if host_managed else ServerStatus.PENDING,
    )
    audit_record(
        host_id=host.id,
        kind="server.registered",
        actor=actor,
        server_id=server.id,
        subject_type="server",
        subject_id=server.id,
        summary=f"Server {name} registered",
        detail={"url": server.url, "trust": trust, "host_managed": host_managed},
    )
    broadcast_topics(topics=["servers"], host_id=host.id)  # a new row on staff lists
    return server


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
        _server_updated(server, status="unreachable", reason=error.category)
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
        _server_updated(server, status=server.status, reason="declarations_changed")
    elif was != server.status:
        _server_updated(server, status=server.status)
    return server


@transaction.atomic
def server_update(
    *,
    server: McpServer,
    actor: Actor,
    name: str | None = None,
    headers: dict[str, str] | None = None,
    trust: str | None = None,
    priority: int | None = None,
    events_dialect: str | None = None,
    events_enforce_identity: bool | None = None,
    mcpe_bash_handlers: bool | None = None,
    url: str | None = None,
) -> McpServer:
    """Change what staff may change. A new URL or other header names (the
    server's registration) suspend the consent given to it as it was
    (``server_registration_changed``) and re-read what it declares there."""
    server = McpServer.objects.select_for_update(no_key=True).get(pk=server.pk)
    changed = []
    previous_url, registration_before = server.url, server.registration_hash
    names_before = server.header_names
    if url is not None and url != server.url:
        if not server.url:
            raise Invalid(
                "the host reaches this server itself; it has no url to change", field="url"
            )
        if not url:
            raise Invalid("url must not be empty", field="url")
        _check_outbound_url(url)
        server.url = url
        changed.append("url")
    if mcpe_bash_handlers is not None and mcpe_bash_handlers != server.mcpe_bash_handlers:
        server.mcpe_bash_handlers = mcpe_bash_handlers
        changed.append("mcpe_bash_handlers")
    if events_dialect is not None:
        if events_dialect not in EventsDialectChoice.values:
            raise Invalid(
                f"events_dialect must be one of {', '.join(EventsDialectChoice.values)}",
                field="events_dialect",
            )
        server.events_dialect_override = events_dialect
        changed.append("events_dialect")
    if events_enforce_identity is not None:
        server.events_enforce_identity = events_enforce_identity
        changed.append("events_enforce_identity")
    if name is not None:
        server.name = name
        changed.append("name")
    if headers is not None:
        server.headers = _validate_headers(headers)
        changed.append("headers")
    if trust is not None:
        if trust not in Trust.values:
            raise Invalid("trust must be trusted or untrusted", field="trust")
        server.trust = trust
        changed.append("trust")
    if priority is not None:
        server.priority = priority
        changed.append("priority")
    if not changed:
        return server
    if "url" in changed:
        server.next_sync_at = timezone.now()  # beat reads what it declares there next
    server.save()
    registration = [
        part
        for part, moved in (
            ("url", server.url != previous_url),
            ("header_names", server.header_names != names_before),
        )
        if moved
    ]
    audit_record(
        host_id=server.host_id,
        kind="server.updated",
        actor=actor,
        server_id=server.id,
        subject_type="server",
        subject_id=server.id,
        summary=f"Server {server.name} updated"
        + (f": now at {server.url}" if "url" in registration else ""),
        detail={
            "fields": changed,
            "trust": server.trust,
            "priority": server.priority,
            "events_dialect": server.events_dialect_override,
            "events_enforce_identity": server.events_enforce_identity,
            # Names only, never values (a credential's name is not a secret).
            **(
                {
                    "previous_url": previous_url,
                    "url": server.url,
                    "header_names": server.header_names,
                    "registration_hash": server.registration_hash,
                    "previous_registration_hash": registration_before,
                }
                if registration
                else {}
            ),
        },
    )
    if registration:
        server_registration_changed.send(
            sender=McpServer,
            server=server,
            actor=actor,
            changed=registration,
            previous_url=previous_url,
        )
        _server_updated(server, status=server.status, reason="registration_changed")
    return server


@transaction.atomic
def server_delete(*, server: McpServer, actor: Actor) -> None:
    """Revoke every grant (and with them subscriptions) first, then retire the server."""
    server_retiring.send(sender=McpServer, server=server, actor=actor)
    server.deleted_at = timezone.now()
    server.next_sync_at = None
    server.save(update_fields=["deleted_at", "next_sync_at", "updated_at"])
    audit_record(
        host_id=server.host_id,
        kind="server.deleted",
        actor=actor,
        server_id=server.id,
        subject_type="server",
        subject_id=server.id,
        summary=f"Server {server.name} deleted; its grants were revoked",
    )
    _server_updated(server, status="deleted")


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
