"""What the core shows live: rendered fragments for the broadcast helper.

Services say *what* changed; this module renders *how it looks* on the
pages that show it, so no service renders templates itself.
"""

from __future__ import annotations

from django.template.loader import render_to_string

from switchboard.broadcast import broadcast_html, broadcast_topics
from switchboard.models import AuditEntry, McpServer


def server_row_changed(server: McpServer) -> None:
    """The server's row on the staff list; the list and its page re-read
    themselves (a new or removed server changes the list, not one row)."""
    html = render_to_string("servers/row_oob.html", {"server": server})
    broadcast_html(html=html, host_id=server.host_id, staff=True)
    broadcast_topics(topics=["servers", f"server:{server.id}"], host_id=server.host_id)


def audit_entry_added(entry: AuditEntry) -> None:
    """The entry at the top of the activity feeds (the user's, the staff's);
    the staff ledger page re-reads itself, with its filters."""
    html = render_to_string("activity/entry_oob.html", {"entry": entry})
    broadcast_html(html=html, host_id=entry.host_id, user_id=entry.user_id or None)
    broadcast_topics(topics=["audit"], host_id=entry.host_id, staff=True)
