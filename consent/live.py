"""What consent shows live: rendered fragments for the broadcast helper."""

from __future__ import annotations

from django.template.loader import render_to_string

from consent.models import AccessRequest
from consent.selectors import authorized_server_cards
from switchboard.broadcast import broadcast_html, broadcast_topics
from switchboard.models import User


def server_cards_changed(user: User) -> None:
    """Re-render the user's server cards on every open page that shows them
    (their "Authorized servers" page, staff's page of that user). The whole
    list, so a first card for a new server appears too."""
    cards = authorized_server_cards(user=user)
    for staff in (False, True):
        html = render_to_string(
            "consent/live/server_cards_oob.html", {"cards": cards, "subject": user, "staff": staff}
        )
        broadcast_html(
            html=html,
            host_id=user.tenant_id,
            user_id=None if staff else user.id,
            staff=staff,
        )


def access_requests_changed(request: AccessRequest) -> None:
    """The user's own list and the staff queue follow ``access_requests``;
    the request's user is told on their pages, staff on theirs."""
    broadcast_topics(
        topics=["access_requests", f"access_request:{request.id}"],
        host_id=request.host_id,
        user_id=request.user_id,
    )
