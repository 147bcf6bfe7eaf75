"""What the receiver answers, and what its parts share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from subscriptions.models import Subscription
from switchboard.actors import Actor
from switchboard.broadcast import PageUpdate, broadcast_updates

SERVER = Actor.system("MCP server")
# The longest webhook-id, eventId or server subscription id we store.
MAX_ID = 200


@dataclass
class Answer:
    status: int
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    # Live-page updates for the caller to send, after the commit, from its
    # event loop (see ``page_updates_send``).
    page_updates: list[tuple[str, PageUpdate]] = field(default_factory=list)


def error(status: int, code: str, message: str, **headers: str) -> Answer:
    return Answer(status, {"error": {"code": code, "message": message}}, dict(headers))


def accepted() -> Answer:
    return Answer(200, {"status": "accepted"})


def duplicate() -> Answer:
    """Stored before (a unique constraint said so): 2xx, so the server stops
    retrying, and nothing stored or forwarded again."""
    return Answer(200, {"status": "duplicate"})


async def page_updates_send(updates: list[tuple[str, PageUpdate]]) -> None:
    """Hand the receiver's live-page updates to the process's sender.

    The caller (ASGI layer or view) calls this after the commit, in the ASGI
    layer after the answer is already on its way. It never waits for Redis
    (``broadcast_updates``); it stays a coroutine for the callers that await it.
    """
    if updates:
        broadcast_updates(updates)


def looked_up_host_data(sub: Subscription) -> dict[str, Any]:
    """``common.host_data`` for a subscription read by the token lookup,
    which joins the user's external id in (no query for the user)."""
    return {
        "subscription_id": sub.id,
        "user": sub.user_external_id,  # type: ignore[attr-defined]  # from the lookup
        "server": sub.server_id,
    }
