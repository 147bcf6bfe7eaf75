"""What happens when a server's status changes: staff pages update live and
the host is told with a ``server.updated`` delivery."""

from __future__ import annotations

from django.template.loader import render_to_string

from switchboard.broadcast import broadcast_html, broadcast_topics
from switchboard.models import McpServer
from switchboard.signals import server_status_changed


def server_notice(*, server: McpServer, status: str, reason: str = "") -> None:
    html = render_to_string("servers/row_oob.html", {"server": server})
    broadcast_html(html=html, host_id=server.host_id, staff=True)
    # A new or removed server changes the list itself, not one row.
    broadcast_topics(topics=["servers", f"server:{server.id}"], host_id=server.host_id)
    _notify_host(server=server, status=status, reason=reason)


def _notify_host(*, server: McpServer, status: str, reason: str) -> None:
    server_status_changed.send(sender=McpServer, server=server, status=status, reason=reason)
