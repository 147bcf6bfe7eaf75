"""Who hears about a consent change, and how. Called by the services, inside
the change's transaction: the host delivery is an outbox row written in it,
and the websocket pushes go out after commit (``broadcast_html``)."""

from __future__ import annotations

from consent import live
from consent.models import ConsentRequest, Grant, GrantStatus
from outbox.emit import host_event_emit
from switchboard.broadcast import broadcast_topics


def _host_event(*, host_id: str, type: str, data: dict) -> None:

    host_event_emit(host_id=host_id, type=type, data=data)


def grant_change_notify(
    *, grant: Grant, previous_status: str | None, extra: dict | None = None
) -> None:
    """1. the host: ``consent.updated`` (with ``extra``, e.g. a new
    ``identity``); 2. the user's and staff's pages: the server's card,
    swapped by id; 3. the requests the grant belongs to."""
    data = {
        "grant_id": grant.id,
        "user": grant.user.external_id,
        "server": grant.server_id,
        "scope": grant.scope,
        "status": grant.status,
    }
    if previous_status:
        data["previous_status"] = previous_status
    if grant.status == GrantStatus.SUSPENDED and grant.suspended_reason:
        data["reason"] = grant.suspended_reason  # e.g. url_changed: why it is on hold
    if grant.org_grant_id is not None:
        data["source"] = "organisation"
        data["org_grant_id"] = grant.org_grant_id
    data.update(extra or {})
    _host_event(host_id=grant.host_id, type="consent.updated", data=data)
    live.server_cards_changed(grant.user)
    broadcast_topics(topics=["grants"], host_id=grant.host_id, user_id=grant.user_id)


def request_change_notify(*, request: ConsentRequest) -> None:
    """Pending lists, "waiting for your answer" notes and the request's own
    page (decided elsewhere) follow requests."""
    broadcast_topics(
        topics=["requests", f"request:{request.id}"],
        host_id=request.host_id,
        user_id=request.user_id,
    )
