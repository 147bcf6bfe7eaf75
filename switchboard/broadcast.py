"""The one way anything reaches browsers live.

Services call these helpers; they send after the surrounding transaction
commits (so nobody sees what might roll back), to one group per user and one
per host for staff. Messages carry HTML rendered from autoescaped templates,
which the htmx websocket extension swaps in by id (``hx-swap-oob``).

Sends run on one long-lived event loop per process (a daemon thread), so a
write never waits for Redis and never pays for a fresh loop and connection
per message, whether it runs in a request thread, a Celery task or async code.
There they wait their turn (``_Sender``): in order per group, a bounded
number at once, and what waits for one group goes out as one message.
Live updates are a convenience on top of the ledger, which is the record:
a send that fails is logged, never raised into the write that caused it.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.utils.html import escape

from switchboard.background import BackgroundThread

log = logging.getLogger(__name__)


class PageUpdate(TypedDict):
    type: Literal["page.update"]
    html: str


class SessionEnd(TypedDict):
    """The sockets that get it close (``switchboard.consumers.LiveConsumer``)."""

    type: Literal["session.end"]


def user_group(user_id: str) -> str:
    return f"user.{user_id}"


def host_staff_group(host_id: str) -> str:
    return f"host.{host_id}.staff"


def session_group(session_key: str) -> str:
    """The sockets opened with one login session. Named from a hash of the
    key: the key is a credential, and group names travel through Redis."""
    return "session." + hashlib.sha256(session_key.encode()).hexdigest()[:40]


class _SendLoop(BackgroundThread):
    """A daemon thread running an event loop: restarted after a fork
    (Celery's prefork pool) or when it stopped, and what waits is sent when
    the process exits (``switchboard.background``)."""

    thread_name = "broadcast"
    # At exit, how long to wait for what is still being sent (Redis may be gone).
    exit_wait = 5.0

    def _reset(self) -> None:
        super()._reset()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sender: _Sender | None = None

    def _starting(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._sender = _Sender(
            concurrency=settings.BROADCAST_CONCURRENCY,
            backlog=settings.BROADCAST_BACKLOG,
            message_max=settings.BROADCAST_MESSAGE_MAX,
        )

    def _run(self) -> None:
        assert self._loop is not None
        self._loop.run_forever()

    def sender(self) -> tuple[asyncio.AbstractEventLoop, _Sender]:
        self._ensure_running()
        loop, sender = self._loop, self._sender
        assert loop is not None and sender is not None
        return loop, sender

    def flush(self) -> None:
        """Send the coalesced topics now and wait until nothing waits."""
        if not self.running():
            return
        loop, sender = self.sender()

        async def drain() -> None:
            for groups in list(sender.coalescing):
                sender.add(groups, topics=sender.coalescing.pop(groups, set()))
            await sender.idle()

        asyncio.run_coroutine_threadsafe(drain(), loop).result(self.exit_wait)


@dataclass
class _Batch:
    """What waits for one group, sent as one message: fragments in the order
    they were written, then one topics element for all the topics asked
    meanwhile (``static/js/live.js`` swaps every fragment of a message, then
    re-reads the regions of its topics)."""

    parts: list[str] = field(default_factory=list)
    size: int = 0
    topics: set[str] = field(default_factory=set)

    def update(self) -> PageUpdate:
        html = "".join(self.parts)
        if self.topics:
            html += topics_html(sorted(self.topics))
        return {"type": "page.update", "html": html}


class _Sender:
    """Sends in order per group, at most ``concurrency`` sends at once for
    the process, on the send loop (only its thread touches this).

    Every write used to start its own send. A burst opened Redis connections
    up to the pool's limit and the rest failed (460 lifecycle calls: 300
    ``MaxConnectionsError``), and what did go out overflowed the page's
    channel (channels-redis drops messages past its capacity, quietly). Now
    a burst waits here (back-pressure in memory, not errors) and what waits
    for a group goes out together, one message per ``message_max`` bytes.
    Past ``backlog`` waiting messages for a group the oldest is dropped with
    a warning: a page that far behind is better served by its next re-read."""

    def __init__(self, *, concurrency: int, backlog: int, message_max: int) -> None:
        self.waiting: dict[str, deque[_Batch]] = {}
        # Coalesced topics waiting for their moment (``broadcast_topics_coalesced``).
        self.coalescing: dict[tuple[str, ...], set[str]] = {}
        self.draining: set[str] = set()
        self.slots = asyncio.Semaphore(concurrency)
        self.backlog = backlog
        self.message_max = message_max
        self._idle = asyncio.Event()  # set while nothing waits
        self._idle.set()

    def add(self, groups: Iterable[str], html: str = "", topics: Iterable[str] = ()) -> None:
        for group in groups:
            batches = self.waiting.setdefault(group, deque())
            if not batches or (html and batches[-1].size + len(html) > self.message_max):
                if len(batches) >= self.backlog:
                    batches.popleft()
                    log.warning("live updates to %s: backlog full, oldest dropped", group)
                batches.append(_Batch())
            batch = batches[-1]
            if html:
                batch.parts.append(html)
                batch.size += len(html)
            batch.topics.update(topics)
            if group not in self.draining:
                self.draining.add(group)
                self._idle.clear()
                asyncio.ensure_future(self._drain(group))

    async def _drain(self, group: str) -> None:
        try:
            while batches := self.waiting.get(group):
                async with self.slots:
                    await _send_one(group, batches.popleft().update())
            self.waiting.pop(group, None)
        finally:
            self.draining.discard(group)
            if not self.draining:
                self._idle.set()

    async def idle(self) -> None:
        """Until everything waiting has been sent (tests, shutdown)."""
        await self._idle.wait()


_send_loop = _SendLoop()


async def _send_one(group: str, message: PageUpdate | SessionEnd) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await layer.group_send(group, message)
    except Exception:  # a dead Redis must never fail the write that triggered this
        log.exception("broadcast to %s failed", group)


def _submit(groups: list[str], *, html: str = "", topics: Iterable[str] = ()) -> None:
    """Hand a message to the send loop; never waits (any thread or loop)."""
    loop, sender = _send_loop.sender()
    loop.call_soon_threadsafe(sender.add, groups, html, list(topics))


def broadcast_idle(timeout: float = 10) -> None:
    """Wait until this process's live updates have all been sent."""
    loop, sender = _send_loop.sender()
    asyncio.run_coroutine_threadsafe(sender.idle(), loop).result(timeout)


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
    groups = _groups(host_id, user_id, staff)
    transaction.on_commit(lambda: _submit(groups, html=html))


def topics_html(topics: list[str]) -> str:
    return f'<div data-live-topics="{escape(" ".join(topics))}"></div>'


def broadcast_topics(
    *, topics: list[str], host_id: str, user_id: str | None = None, staff: bool = True
) -> None:
    """Ask open pages to re-read the regions that follow these topics
    (``data-live-region`` in the templates; ``static/js/live.js`` does the
    re-reading). For lists and counts, where rendering a fragment here would
    repeat the page's own view: the page renders itself, filters included."""
    groups = _groups(host_id, user_id, staff)
    transaction.on_commit(lambda: _submit(groups, topics=topics))


def broadcast_topics_now(
    *, topics: list[str], host_id: str, user_id: str | None = None, staff: bool = True
) -> None:
    """``broadcast_topics`` for code that wrote nothing in a transaction and may
    run on an event loop (the fan-out, after its reply): sent at once, without
    touching the database connection, from the send loop's thread."""
    _submit(_groups(host_id, user_id, staff), topics=topics)


def _coalesce(sender: _Sender, groups: tuple[str, ...], topics: list[str], within: float) -> None:
    waiting = sender.coalescing.get(groups)
    if waiting is not None:
        waiting.update(topics)
        return
    sender.coalescing[groups] = set(topics)

    def flush() -> None:
        sender.add(groups, topics=sender.coalescing.pop(groups, set()))

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
        loop, sender = _send_loop.sender()
        loop.call_soon_threadsafe(_coalesce, sender, groups, list(topics), within)

    transaction.on_commit(schedule)


def broadcast_updates(updates: list[tuple[str, PageUpdate]]) -> None:
    """Send prepared updates (the webhook receiver's, after its answer is on
    the way) through the same sender: in order, bounded, never waiting."""
    loop, sender = _send_loop.sender()
    for group, message in updates:
        loop.call_soon_threadsafe(sender.add, [group], message["html"], ())


def sessions_end_now(*, session_key: str) -> None:
    """Close the sockets opened with this login session: at once, from the
    send loop's thread, since a logout writes nothing to wait for and the
    session is gone a moment later (``switchboard.receivers``)."""
    loop, _ = _send_loop.sender()
    end: SessionEnd = {"type": "session.end"}
    asyncio.run_coroutine_threadsafe(_send_one(session_group(session_key), end), loop)


def sessions_end_for_user(*, user_id: str) -> None:
    """Close every socket of the user, after the surrounding transaction
    commits (a deleted user: their sessions stay in the database, but their
    sockets must not stay open on them)."""

    def send() -> None:
        loop, _ = _send_loop.sender()
        end: SessionEnd = {"type": "session.end"}
        asyncio.run_coroutine_threadsafe(_send_one(user_group(user_id), end), loop)

    transaction.on_commit(send)
