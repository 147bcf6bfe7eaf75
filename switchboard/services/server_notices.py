"""What happens when a server's status changes: staff pages update live.
(The host's ``server.updated`` delivery joins once the host endpoint exists.)"""

from __future__ import annotations

from django.template.loader import render_to_string

from switchboard.broadcast import broadcast_html
from switchboard.models import McpServer


def server_notice(*, server: McpServer, status: str, reason: str = "") -> None:
    html = render_to_string("servers/row_oob.html", {"server": server})
    broadcast_html(html=html, host_id=server.host_id, staff=True)
