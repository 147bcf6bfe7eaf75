"""The MCP server registry: register, update, delete.

Registering a server with a URL syncs it at once (``server_sync``, in
``switchboard.services.server_sync``, which also reads what servers declare
later on); a server the host reaches itself takes the capabilities it
declared.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from switchboard.actors import Actor
from switchboard.broadcast import broadcast_topics
from switchboard.errors import Invalid
from switchboard.mcp.netguard import BlockedTarget, check_url
from switchboard.models import EventsDialectChoice, Host, McpServer, ServerStatus, Trust
from switchboard.services.audit import audit_record
from switchboard.services.server_discovery import snapshot_from_declared_capabilities
from switchboard.services.server_notices import server_notice
from switchboard.services.server_sync import server_apply_snapshot, server_sync
from switchboard.signals import server_registration_changed, server_retiring


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
        server_notice(server=server, status=server.status, reason="registration_changed")
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
    server_notice(server=server, status="deleted")
