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


# Kinds of ledger entry (the part before the dot) that staff pages follow,
# as ``ledger:<family>``: the users, keys and policy pages, a server's own
# pages (``server:<id>``), and the sign-in page (the organisation's sign-in,
# ``sso``; staff roles and sessions, ``staff``).
LEDGER_FAMILIES = frozenset({"user", "api_key", "policy", "server", "sso", "staff"})


def ledger_topics(entry: AuditEntry) -> list[str]:
    """What a ledger entry announces to staff pages: ``audit`` (the ledger
    page) and, for the families pages show (``LEDGER_FAMILIES``),
    ``ledger:<family>`` (``user.created`` -> ``ledger:user``), so a page
    showing users, keys or the policy follows every write of them (every
    write records an entry); a server's entries also announce
    ``server:<id>``."""
    family = entry.kind.split(".", 1)[0]
    if family not in LEDGER_FAMILIES:
        return ["audit"]
    topics = ["audit", f"ledger:{family}"]
    if family == "server" and entry.server_id:
        topics.append(f"server:{entry.server_id}")
    return topics


def audit_entry_added(entry: AuditEntry) -> None:
    """The entry at the top of the activity feeds (the user's, the staff's);
    staff pages that follow what it records re-read themselves, with their
    filters (``ledger_topics``)."""
    html = render_to_string("activity/entry_oob.html", {"entry": entry})
    broadcast_html(html=html, host_id=entry.host_id, user_id=entry.user_id or None)
    broadcast_topics(topics=ledger_topics(entry), host_id=entry.host_id, staff=True)


def api_key_used(host_id: str) -> None:
    """The keys page shows when each key was last used (not a ledger entry)."""
    broadcast_topics(topics=["keys"], host_id=host_id, staff=True)


def staff_sessions_changed(host_ids: set[str]) -> None:
    """The sign-in page lists the staff sessions open: a sign-in by link
    records no ledger entry, so the sessions announce themselves."""
    for host_id in sorted(host_ids):
        broadcast_topics(topics=["staff-sessions"], host_id=host_id, staff=True)
