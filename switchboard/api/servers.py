"""The MCP server registry (contract: MCP servers)."""

from __future__ import annotations

from typing import Any, Literal

from asgiref.sync import sync_to_async
from ninja import Field, Router, Schema, Status
from pydantic import StrictBool, StrictInt

from switchboard.api.pagination import paginate
from switchboard.api.params import PageLimit
from switchboard.api.schemas import ErrorOut
from switchboard.models import McpServer
from switchboard.selectors import server_get_for_host, servers_for_host
from switchboard.services.server_block import server_block, server_unblock
from switchboard.services.server_sync import server_sync_async
from switchboard.services.servers import server_delete, server_register, server_update

router = Router(tags=["servers"])
ERRORS = {400: ErrorOut, 401: ErrorOut, 404: ErrorOut, 422: ErrorOut}


class ServerIn(Schema):
    name: str = Field(..., min_length=1, max_length=200)
    url: str | None = Field(None, max_length=2000)
    headers: dict[str, str] | None = None
    trust: Literal["trusted", "untrusted"] = "untrusted"
    capabilities: dict[str, Any] | None = None


class ServerPatch(Schema):
    name: str | None = Field(None, min_length=1, max_length=200)
    url: str | None = Field(
        None,
        min_length=1,
        max_length=2000,
        description="where the server is reached; a new url (or other header names) suspends "
        "its users' consent until they approve it again",
    )
    headers: dict[str, str] | None = None
    trust: Literal["trusted", "untrusted"] | None = None
    priority: StrictInt | None = Field(None, ge=-1_000_000, le=1_000_000)
    events_dialect: Literal["auto", "sep-3415", "chatgpt"] | None = Field(
        None, description="Which events dialect to speak; auto = detected"
    )
    events_enforce_identity: StrictBool | None = Field(
        None,
        description="Require the server's ed25519 (v1a) signature, by a key it publishes "
        "at /.well-known/mcp-webhook-jwks.json, on every delivery",
    )


class EventTypeOut(Schema):
    name: str
    description: str
    delivery: list[str]
    input_schema: dict[str, Any]
    payload_schema: dict[str, Any]


class HookDeclarationOut(Schema):
    hook_id: str
    event: str
    matcher: Any = None
    context: str | None = None
    context_tool: str | None = None
    context_tool_args: Any = None
    priority: str
    valid: bool
    problems: list[str]
    raw: dict[str, Any] | Any


class ServerOut(Schema):
    id: str
    name: str
    url: str
    trust: str
    priority: int
    status: str
    last_error: str | None
    capabilities: dict[str, Any]
    capability_sources: dict[str, str]
    events_dialect: str = Field(..., description="auto, or the dialect staff chose")
    events_enforce_identity: bool
    event_types: list[EventTypeOut]
    hook_declarations: list[HookDeclarationOut]
    conversation_events: bool
    protocol_version: str
    last_synced_at: Any = None
    created_at: Any = None
    blocked_at: Any = Field(None, description="set while the kill switch blocks the server")


class BlockOut(Schema):
    """What the kill switch stopped (zero for an unblock: it restores nothing)."""

    blocked: bool
    grants_suspended: int
    subscriptions_revoked: int


class ServerPage(Schema):
    items: list[ServerOut]
    next_cursor: str | None


def _capabilities_with_dialect(server: McpServer) -> dict[str, Any]:
    """``capabilities.events.dialect``: the dialect spoken to it (v1.2); and
    ``list_changes`` ("listen" | "relist", once known): how we hear of new
    event types (case 59)."""
    capabilities = dict(server.capabilities or {})
    events = capabilities.get("events")
    if isinstance(events, dict):
        capabilities["events"] = {**events, "dialect": server.events_dialect}
        if server.events_list_changes:
            capabilities["events"]["list_changes"] = server.events_list_changes
    return capabilities


def server_as_dict(server: McpServer) -> dict[str, Any]:
    """The contract's server shape; declarations verbatim with their problems."""
    declarations = []
    for declaration in server.hook_declarations.filter(removed_at__isnull=True):
        raw = declaration.raw if isinstance(declaration.raw, dict) else {}
        declarations.append(
            {
                "hook_id": declaration.hook_id,
                "event": declaration.event,
                "matcher": raw.get("matcher"),
                "context": raw.get("context"),
                "context_tool": raw.get("context_tool"),
                "context_tool_args": raw.get("context_tool_args"),
                "priority": declaration.priority,
                "valid": declaration.valid,
                "problems": declaration.problems,
                "raw": declaration.raw,
            }
        )
    return {
        "id": server.id,
        "name": server.name,
        "url": server.url,
        "trust": server.trust,
        "priority": server.priority,
        "status": server.status,
        "last_error": server.last_error or None,
        "capabilities": _capabilities_with_dialect(server),
        "capability_sources": server.capability_sources,
        "events_dialect": server.events_dialect_override,
        "events_enforce_identity": server.events_enforce_identity,
        "event_types": list(server.event_types.filter(removed_at__isnull=True)),
        "hook_declarations": declarations,
        "conversation_events": server.conversation_events,
        "protocol_version": server.protocol_version,
        "last_synced_at": server.last_synced_at,
        "created_at": server.created_at,
        "blocked_at": server.blocked_at,
    }


@router.post("/servers", response={201: ServerOut, **ERRORS})
def register_server(request, payload: ServerIn):
    server = server_register(
        host=request.host,
        name=payload.name,
        url=payload.url,
        headers=payload.headers,
        trust=payload.trust,
        capabilities=payload.capabilities,
        actor=request.actor,
    )
    return Status(201, server_as_dict(server))


@router.get("/servers", response={200: ServerPage, **ERRORS})
def list_servers(request, cursor: str | None = None, limit: PageLimit | None = None):
    rows, next_cursor = paginate(servers_for_host(host=request.host), cursor=cursor, limit=limit)
    return {"items": [server_as_dict(row) for row in rows], "next_cursor": next_cursor}


@router.get("/servers/{server_id}", response={200: ServerOut, **ERRORS})
def get_server(request, server_id: str):
    return server_as_dict(server_get_for_host(host=request.host, server_id=server_id))


@router.patch("/servers/{server_id}", response={200: ServerOut, **ERRORS})
def patch_server(request, server_id: str, payload: ServerPatch):
    server = server_get_for_host(host=request.host, server_id=server_id)
    server = server_update(server=server, actor=request.actor, **payload.dict(exclude_unset=True))
    return server_as_dict(server)


@router.delete("/servers/{server_id}", response={204: None, **ERRORS})
def delete_server(request, server_id: str):
    server_delete(
        server=server_get_for_host(host=request.host, server_id=server_id), actor=request.actor
    )
    return Status(204, None)


@router.post("/servers/{server_id}/block", response={200: BlockOut, **ERRORS})
def block_server(request, server_id: str):
    """The kill switch: every live grant suspended, every subscription
    revoked (unsubscribed on the server), and nothing reaches the server
    until it is unblocked."""
    server = server_get_for_host(host=request.host, server_id=server_id)
    return {"blocked": True, **server_block(server=server, actor=request.actor)}


@router.post("/servers/{server_id}/unblock", response={200: BlockOut, **ERRORS})
def unblock_server(request, server_id: str):
    """Lift the block. Restores nothing by itself: users consent again."""
    server = server_get_for_host(host=request.host, server_id=server_id)
    server_unblock(server=server, actor=request.actor)
    return {"blocked": False, "grants_suspended": 0, "subscriptions_revoked": 0}


@router.post("/servers/{server_id}/sync", response={200: ServerOut, 409: ErrorOut, **ERRORS})
async def sync_server(request, server_id: str):
    """Async on purpose: the MCP conversation runs on the ASGI event loop
    through the async client layer; only the database work hops to a thread."""

    server = await sync_to_async(server_get_for_host)(host=request.host, server_id=server_id)
    server = await server_sync_async(server=server, actor=request.actor)
    return await sync_to_async(server_as_dict)(server)
