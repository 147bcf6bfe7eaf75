"""What subscriptions show live: rendered fragments for the broadcast helper."""

from __future__ import annotations

from django.template.loader import render_to_string

from subscriptions.models import ReceivedEvent, Subscription
from switchboard.broadcast import PageUpdate, host_staff_group, user_group


def event_page_updates(sub: Subscription, received: ReceivedEvent) -> list[tuple[str, PageUpdate]]:
    """A received event's row for the user's pages (with the payload,
    escaped) and for staff pages (without: payloads are for auditors, who
    open the page); the summary (cursor, last event) and lists re-read
    themselves. Returned, not sent: the receiver sends them from its event
    loop after answering the server."""
    updates: list[tuple[str, PageUpdate]] = []
    for show_payload, group in (
        (True, user_group(sub.user_id)),
        (False, host_staff_group(sub.host_id)),
    ):
        html = render_to_string(
            "subscriptions/oob_event.html",
            {"sub": sub, "event": received, "show_payload": show_payload},
        )
        updates.append((group, {"type": "page.update", "html": html}))
        topics = f'<div data-live-topics="subscriptions subscription:{sub.id}"></div>'
        updates.append((group, {"type": "page.update", "html": topics}))
    return updates
