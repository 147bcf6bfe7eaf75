"""The one way anything reaches browsers live.

Services call these helpers; they send after the surrounding transaction
commits (so nobody sees what might roll back), to one group per user and one
per host for staff. Messages carry HTML rendered from autoescaped templates,
which the htmx websocket extension swaps in by id (``hx-swap-oob``).

Sends run on one long-lived event loop per process (a daemon thread), so a
write never waits for Redis and never pays for a fresh loop and connection
per message, whether it runs in a request thread, a Celery task or async code.
Live updates are a convenience on top of the ledger, which is the record:
a send that fails is logged, never raised into the write that caused it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Literal, TypedDict

from channels.layers import get_channel_layer
from django.db import transaction
from django.utils.html import escape

log = logging.getLogger(__name__)


class PageUpdate(TypedDict):
    type: Literal["page.update"]
    html: str


def user_group(user_id: str) -> str:
    return f"user.{user_id}"


def host_staff_group(host_id: str) -> str:
    return f"host.{host_id}.staff"


class _SendLoop:
    """A daemon thread running an event loop; restarted after a fork (Celery's
    prefork pool), since threads do not survive into the child."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid: int | None = None

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="broadcast", daemon=True).start()
                self._loop, self._pid = loop, os.getpid()
            return self._loop


_send_loop = _SendLoop()


async def _send_all(groups: list[str], message: PageUpdate) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for group in groups:
        try:
            await layer.group_send(group, message)
        except Exception:  # a dead Redis must never fail the write that triggered this
            log.exception("broadcast to %s failed", group)


def _send(groups: list[str], message: PageUpdate) -> None:
    asyncio.run_coroutine_threadsafe(_send_all(groups, message), _send_loop.loop())


def _groups(host_id: str, user_id: str | None, staff: bool) -> list[str]:
    groups = []
    if user_id:
        groups.append(user_group(user_id))
    if staff:
        groups.append(host_staff_group(host_id))
    return groups


def broadcast_html(
    *, html: str, host_id: str, user_id: str | None = None, staff: bool = True
) -> None:
    """Send ``html`` to the user's group and/or the host's staff group after commit."""
    message: PageUpdate = {"type": "page.update", "html": html}
    groups = _groups(host_id, user_id, staff)
    transaction.on_commit(lambda: _send(groups, message))


def topics_html(topics: list[str]) -> str:
    return f'<div data-live-topics="{escape(" ".join(topics))}"></div>'


def broadcast_topics(
    *, topics: list[str], host_id: str, user_id: str | None = None, staff: bool = True
) -> None:
    """Ask open pages to re-read the regions that follow these topics
    (``data-live-region`` in the templates; ``static/js/live.js`` does the
    re-reading). For lists and counts, where rendering a fragment here would
    repeat the page's own view: the page renders itself, filters included."""
    broadcast_html(html=topics_html(topics), host_id=host_id, user_id=user_id, staff=staff)


def broadcast_topics_now(
    *, topics: list[str], host_id: str, user_id: str | None = None, staff: bool = True
) -> None:
    """``broadcast_topics`` for code that wrote nothing in a transaction and may
    run on an event loop (the fan-out, after its reply): sent at once, without
    touching the database connection, from the send loop's thread."""
    message: PageUpdate = {"type": "page.update", "html": topics_html(topics)}
    _send(_groups(host_id, user_id, staff), message)


# Coalesced topics waiting in the send loop: (groups) -> topics. Only the send
# loop's thread touches it.
_coalescing: dict[tuple[str, ...], set[str]] = {}


def _coalesce(groups: tuple[str, ...], topics: list[str], within: float) -> None:
    waiting = _coalescing.get(groups)
    if waiting is not None:
        waiting.update(topics)
        return
    _coalescing[groups] = set(topics)

    def flush() -> None:
        merged = sorted(_coalescing.pop(groups, set()))
        message: PageUpdate = {"type": "page.update", "html": topics_html(merged)}
        asyncio.ensure_future(_send_all(list(groups), message))

    asyncio.get_running_loop().call_later(within, flush)


def broadcast_topics_coalesced(
    *,
    topics: list[str],
    host_id: str,
    user_id: str | None = None,
    staff: bool = True,
    within: float = 0.5,
) -> None:
    """``broadcast_topics`` for writes that come in bursts (a stream's
    events): after commit, the topics wait up to ``within`` seconds for
    others bound to the same pages, then go out as one message. A hundred
    events a second cost the pages (and Redis) two messages a second."""
    groups = tuple(_groups(host_id, user_id, staff))
    if not groups:
        return

    def schedule() -> None:
        _send_loop.loop().call_soon_threadsafe(_coalesce, groups, list(topics), within)

    transaction.on_commit(schedule)


async def broadcast_updates(updates: list[tuple[str, PageUpdate]]) -> None:
    """Send prepared updates from the caller's own event loop (the webhook
    receiver sends them after its answer is on the way)."""
    layer = get_channel_layer()
    if layer is None:
        return
    for group, message in updates:
        try:
            await layer.group_send(group, message)
        except Exception:  # a dead Redis must never fail a stored delivery
            log.warning("live update to %s failed", group, exc_info=True)
