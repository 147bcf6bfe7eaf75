"""What hooks show live: rendered fragments for the broadcast helper."""

from __future__ import annotations

from django.template.loader import render_to_string

from hooks.models import HookFiring, LifecycleEvent
from switchboard.broadcast import broadcast_html, broadcast_topics


def timeline_entry_added(record: LifecycleEvent, firings: list[HookFiring]) -> None:
    """The timeline entry: the user's variant to the user, the staff variant
    (with user and session) to the host's staff."""
    for for_staff in (False, True):
        html = render_to_string(
            "hooks/timeline_entry_oob.html",
            {"event": record, "firings": firings, "for_staff": for_staff},
        )
        broadcast_html(
            html=html,
            host_id=record.host_id,
            user_id=None if for_staff else record.user_id,
            staff=for_staff,
        )
    # Staff's list of agent sessions shows each one's last event.
    broadcast_topics(topics=["hook-sessions"], host_id=record.host_id)
    # The pages of the servers that fired show when each hook last fired.
    servers = sorted({firing.server_id for firing in firings})
    if servers:
        broadcast_topics(
            topics=[f"hooks:{server_id}" for server_id in servers],
            host_id=record.host_id,
            user_id=record.user_id or None,
        )
