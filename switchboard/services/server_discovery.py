"""Learn what a server declares, through the one MCP client layer.

Kept apart from ``servers.py`` because this part talks to the network and
never touches the database; the registry applies what it returns.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import anyio

from switchboard.mcp import (
    McpCallError,
    McpSession,
    McpTarget,
    ServerCapabilities,
    capabilities_from_dict,
    declarations_from_capability,
    run_sync,
)
from switchboard.mcp.mcpe import looks_like_mcpe_capability, mcpe_capability


@dataclass
class ServerSnapshot:
    """Everything a sync learned about a server, independent of the database."""

    capabilities: dict[str, Any]  # {"events": …, "conversation_events": …, "hooks": …}
    sources: dict[str, str]  # where each capability was found
    events_locations: list[str] = field(default_factory=list)  # every place events was found
    protocol_version: str = ""
    event_types: list[dict[str, Any]] = field(default_factory=list)
    declarations: list[Any] = field(default_factory=list)  # switchboard.mcp Declaration objects


def _snapshot(
    server_id: str,
    caps: ServerCapabilities,
    event_types: list[dict[str, Any]],
    mcpe: dict[str, Any] | None = None,
) -> ServerSnapshot:
    return ServerSnapshot(
        capabilities={
            "events": caps.events,
            "conversation_events": caps.conversation_events,
            "hooks": caps.hooks,
            **({"mcpe": mcpe} if mcpe else {}),
        },
        sources={feature: source for feature, source in caps.sources.items() if source},
        # None when the only `events` found was MCPE's (see _mcpe_read).
        events_locations=caps.events_locations if caps.events is not None else [],
        protocol_version=caps.protocol_version or "",
        event_types=event_types,
        declarations=declarations_from_capability(server_id=server_id, hooks=caps.hooks),
    )


async def fetch_snapshot(
    *, server_id: str, url: str, headers: dict[str, str], deadline: float
) -> ServerSnapshot:
    """Capabilities, every page of events/list and the hook declarations,
    all under one overall deadline (a hanging server must not hang us)."""
    # Each step is bounded by the session's own timeouts too, so the outer
    # deadline is a backstop rather than the usual way a slow server ends.
    target = McpTarget(
        url=url,
        headers=headers,
        server_id=server_id,
        connect_timeout=deadline,
        call_timeout=deadline,
    )
    try:
        with anyio.fail_after(deadline):
            async with McpSession(target) as session:
                caps = await session.capabilities(every_location=True)
                caps, mcpe = _mcpe_read(caps, await _tool_names(session))
                descriptors = await session.list_all_events() if caps.supports_events else []
    except TimeoutError:
        raise McpCallError(
            "timeout",
            f"the server did not finish answering within {deadline:g}s",
            method="sync",
            server=target.safe_url,
        ) from None
    event_types = [d.model_dump(by_alias=True, exclude_none=True, mode="json") for d in descriptors]
    return _snapshot(server_id, caps, event_types, mcpe)


async def _tool_names(session: McpSession) -> list[str]:
    try:
        return [tool.name for tool in await session.list_tools()]
    except McpCallError as exc:
        if exc.category == "mcp_error":
            return []  # no tools at all (tools/list not offered)
        raise


def _mcpe_read(
    caps: ServerCapabilities, tool_names: list[str]
) -> tuple[ServerCapabilities, dict[str, Any] | None]:
    """MCPE is recognised by its tools (four required, pause and resume
    optional: ``switchboard.mcp.mcpe``). An
    ``events`` capability under ``experimental`` that is MCPE's own is not
    the MCP Events capability: without this, an MCPE server that declares
    one would be asked for ``events/list``."""
    declared = caps.events if caps.sources.get("events") == "experimental" else None
    mcpe = mcpe_capability(tool_names, declared)
    if mcpe is not None and looks_like_mcpe_capability(declared):
        caps = dataclasses.replace(caps, events=None, sources={**caps.sources, "events": None})
    return caps, mcpe


def fetch_snapshot_sync(
    *, server_id: str, url: str, headers: dict[str, str], deadline: float
) -> ServerSnapshot:
    """For Celery tasks and sync views: a fresh client for this one call."""
    return run_sync(
        lambda: fetch_snapshot(server_id=server_id, url=url, headers=headers, deadline=deadline)
    )


def snapshot_from_declared_capabilities(
    server_id: str, capabilities: dict[str, Any]
) -> ServerSnapshot:
    """A host-managed server (e.g. stdio): the host tells us what it declares.
    Read with the same lookup order as a live server; event types may be
    given as ``eventTypes`` (the events/list descriptor shape)."""
    caps = capabilities_from_dict(capabilities)
    declared = capabilities.get("eventTypes")
    event_types = [d for d in declared if isinstance(d, dict)] if isinstance(declared, list) else []
    return _snapshot(server_id, caps, event_types)
