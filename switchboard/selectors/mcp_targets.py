"""Which credentials a call to an MCP server carries, for a given user.

The user's own headers for that server (PUT .../credentials) when they have
some — so the server sees *them* as the principal — else the server's
host-level headers. One place decides this for every app.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from switchboard.mcp import McpTarget
from switchboard.models import McpServer, UserServerCredential


def mcp_targets_for(
    *,
    user_id: str | None,
    servers: Iterable[McpServer],
    timeout: float | None = None,
    own_headers: Mapping[str, dict | None] | None = None,
) -> dict[str, McpTarget]:
    """One query for many servers (the conversation fan-out, thread refresh),
    none when the caller already read the user's headers (``own_headers``:
    server id -> the user's headers, or None). ``timeout`` bounds both
    connecting and each call, when the caller has a budget."""
    servers = list(servers)
    own: Mapping[str, dict | None] = {}
    if own_headers is not None:
        own = own_headers
    elif user_id:
        own = {
            credential.server_id: credential.headers
            for credential in UserServerCredential.objects.filter(
                user_id=user_id, server_id__in=[server.id for server in servers]
            )
        }
    return {
        server.id: McpTarget(
            url=server.url,
            headers=dict(own.get(server.id) or server.headers or {}),
            server_id=server.id,
            connect_timeout=timeout,
            call_timeout=timeout,
        )
        for server in servers
    }


def mcp_target_for(
    *, user_id: str | None, server: McpServer, timeout: float | None = None
) -> McpTarget:
    return mcp_targets_for(user_id=user_id, servers=[server], timeout=timeout)[server.id]


def identity_for(*, user_id: str, server: McpServer) -> str:
    """``"user"`` when the user's own credentials are used, else ``"host"``."""
    return (
        "user"
        if UserServerCredential.objects.filter(user_id=user_id, server=server).exists()
        else "host"
    )
