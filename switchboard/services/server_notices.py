"""What happens when a server's status changes: staff pages update live and
the host is told with a ``server.updated`` delivery."""

from __future__ import annotations

from switchboard import live
from switchboard.models import McpServer
from switchboard.signals import server_status_changed


def server_notice(*, server: McpServer, status: str, reason: str = "") -> None:
    live.server_row_changed(server)
    _notify_host(server=server, status=status, reason=reason)


def _notify_host(*, server: McpServer, status: str, reason: str) -> None:
    server_status_changed.send(sender=McpServer, server=server, status=status, reason=reason)
