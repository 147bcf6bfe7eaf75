"""Who hears about a consent change, and how. Called by the services, inside
the change's transaction: the host delivery is an outbox row written in it,
and the websocket pushes go out after commit (``broadcast_html``)."""

from __future__ import annotations

from django.template.loader import render_to_string

from consent.models import ConsentRequest, Grant
from consent.selectors import authorized_server_cards
from subscriptions.host_events import host_event_emit
from switchboard.broadcast import broadcast_html, broadcast_topics


def _host_event(*, host_id: str, type: str, data: dict) -> None:

    host_event_emit(host=host_id, type=type, data=data)


def grant_change_notify(*, grant: Grant, previous_status: str | None) -> None:
    """1. the host: ``consent.updated``; 2. the user's and staff's pages: the
    server's card, swapped by id; 3. the requests the grant belongs to."""
    data = {
        "grant_id": grant.id,
        "user": grant.user.external_id,
        "server": grant.server_id,
        "scope": grant.scope,
        "status": grant.status,
    }
    if previous_status:
        data["previous_status"] = previous_status
    _host_event(host_id=grant.host_id, type="consent.updated", data=data)
    server_card_push(user=grant.user, server_id=grant.server_id)
    broadcast_topics(topics=["grants"], host_id=grant.host_id, user_id=grant.user_id)


def server_card_push(*, user, server_id: str | None = None) -> None:
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
            host_id=user.host_id,
            user_id=None if staff else user.id,
            staff=staff,
        )


def request_change_notify(*, request: ConsentRequest) -> None:
    """Pending lists, "waiting for your answer" notes and the request's own
    page (decided elsewhere) follow requests."""
    broadcast_topics(
        topics=["requests", f"request:{request.id}"],
        host_id=request.host_id,
        user_id=request.user_id,
    )
