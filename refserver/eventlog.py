"""In-memory log of emitted events, one sequence per event type.

Cursors are the per-type sequence number of the last event covered, as a
decimal string ("0" = before the first event). Clients must treat them as
opaque; the server keeps them simple so a test can reason about them. The
log is what makes replay work: `cursor` on poll, stream and subscribe
replays everything after it, so it survives `POST /control/forget` (which
drops subscriptions, not history).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any


def iso_now() -> str:
    return iso(datetime.now(UTC))


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Occurrence:
    seq: int
    event_id: str
    name: str
    timestamp: str
    data: Any
    # What the emitter tagged the event with, for subscription filters.
    tags: dict[str, Any]
    emitted_at: float = field(default_factory=time.time)

    @property
    def cursor(self) -> str:
        return str(self.seq)

    def wire(self) -> dict[str, Any]:
        """The EventOccurrence shape (SEP-3415), cursor = position after it."""
        return {
            "eventId": self.event_id,
            "name": self.name,
            "timestamp": self.timestamp,
            "data": self.data,
            "cursor": self.cursor,
        }


class EventLog:
    def __init__(self, retention: int = 1000) -> None:
        self.retention = retention
        self._events: dict[str, list[Occurrence]] = {}
        self._seq: dict[str, int] = {}
        self._changed = asyncio.Event()

    def clear(self) -> None:
        self._events.clear()
        self._seq.clear()

    def head(self, name: str) -> int:
        return self._seq.get(name, 0)

    def append(
        self,
        name: str,
        data: Any,
        tags: dict[str, Any] | None = None,
        event_id: str | None = None,
        timestamp: str | None = None,
    ) -> Occurrence:
        seq = self._seq.get(name, 0) + 1
        self._seq[name] = seq
        occurrence = Occurrence(
            seq=seq,
            event_id=event_id or f"evt_{name.replace('.', '_')}_{seq}_{secrets.token_hex(4)}",
            name=name,
            timestamp=timestamp or iso_now(),
            data=data,
            tags=tags if tags is not None else (data if isinstance(data, dict) else {}),
        )
        events = self._events.setdefault(name, [])
        events.append(occurrence)
        if len(events) > self.retention:
            del events[: len(events) - self.retention]
        # Wake long polls and streams: swap in a fresh event so waiters see one edge.
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
        return occurrence

    def resolve(self, name: str, cursor: str | None) -> tuple[int, bool]:
        """Map a client cursor to (sequence to replay after, truncated).

        None means "from now". A cursor we cannot honour (garbage, ahead of the
        log after a reset, or older than what we retain) is never an error:
        the reply starts from what we have and says `truncated`.
        """
        head = self.head(name)
        if cursor is None:
            return head, False
        try:
            position = int(cursor)
        except (TypeError, ValueError):
            return head, True
        if position < 0 or position > head:
            return head, True
        events = self._events.get(name, [])
        retained_from = events[0].seq - 1 if events else head
        if position < retained_from:
            return retained_from, True
        return position, False

    def after(self, name: str, position: int, max_age_ms: int | None = None) -> list[Occurrence]:
        floor = time.time() - max_age_ms / 1000 if max_age_ms is not None else None
        return [
            e
            for e in self._events.get(name, [])
            if e.seq > position and (floor is None or e.emitted_at >= floor)
        ]

    def all(self) -> dict[str, list[Occurrence]]:
        return self._events

    async def wait_changed(self, timeout_s: float) -> bool:
        """Wait until any event is appended; False on timeout."""
        changed = self._changed
        try:
            await asyncio.wait_for(changed.wait(), timeout=max(0.0, timeout_s))
        except TimeoutError:
            return False
        return True
