"""Live `events/stream` requests, so emits and control actions can reach them.

A push subscription exists only while its request is open (SEP-3415's events/stream), so
the hub holds nothing durable: each open stream registers a queue and the
handler drains it into request-scoped notifications.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

StreamItemKind = Literal["event", "gap", "error", "terminated", "list_changed", "drop"]


@dataclass
class StreamItem:
    kind: StreamItemKind
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass
class OpenStream:
    key: int
    request_id: Any
    principal: str
    name: str
    arguments: dict[str, Any]
    queue: asyncio.Queue[StreamItem] = field(default_factory=asyncio.Queue)

    def describe(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "requestId": self.request_id,
            "principal": self.principal,
            "name": self.name,
            "arguments": self.arguments,
        }


_ABSENT = object()  # the stream's arguments do not name this filter key


class StreamHub:
    def __init__(self) -> None:
        self.open: dict[int, OpenStream] = {}
        self._keys = itertools.count(1)
        # (event name, filter keys) -> the open streams of that name by their
        # values for those keys (``_ABSENT`` where a stream names none), built
        # on first use and dropped whenever a stream opens or closes. None:
        # some value cannot be hashed, so ``candidates`` scans.
        self._indexes: dict[tuple[str, tuple[str, ...]], dict[tuple, list[OpenStream]] | None] = {}

    def register(
        self, *, request_id: Any, principal: str, name: str, arguments: dict[str, Any]
    ) -> OpenStream:
        stream = OpenStream(
            key=next(self._keys),
            request_id=request_id,
            principal=principal,
            name=name,
            arguments=arguments,
        )
        self.open[stream.key] = stream
        self._indexes.clear()
        return stream

    def unregister(self, stream: OpenStream) -> None:
        self.open.pop(stream.key, None)
        self._indexes.clear()

    def candidates(
        self, name: str, filter_keys: tuple[str, ...], event_args: dict[str, Any]
    ) -> list[OpenStream]:
        """The open streams of ``name`` that an event with ``event_args``
        may reach: those whose value for each filter key is the event's or
        that name no value for it (``catalog.matches_filter``'s rule; the
        caller still checks each). A thousand open streams cost an emit a
        few lookups instead of a scan. In opening order."""
        index = self._index(name, filter_keys)
        if index is None or len(filter_keys) > 4:
            return self.matching(name)
        try:
            found: list[OpenStream] = []
            for combination in itertools.product(
                *((_ABSENT, event_args.get(key)) for key in filter_keys)
            ):
                found += index.get(combination, ())
        except TypeError:  # an unhashable value in the event
            return self.matching(name)
        return sorted(found, key=lambda stream: stream.key)

    def _index(
        self, name: str, filter_keys: tuple[str, ...]
    ) -> dict[tuple, list[OpenStream]] | None:
        if (name, filter_keys) in self._indexes:
            return self._indexes[(name, filter_keys)]
        index: dict[tuple, list[OpenStream]] | None = {}
        for stream in self.matching(name):
            values = tuple(stream.arguments.get(key, _ABSENT) for key in filter_keys)
            try:
                index.setdefault(values, []).append(stream)  # type: ignore[union-attr]
            except TypeError:  # an unhashable argument value
                index = None
                break
        self._indexes[(name, filter_keys)] = index
        return index

    def matching(self, name: str | None) -> list[OpenStream]:
        return [s for s in self.open.values() if name is None or s.name == name]

    def broadcast(self, item: StreamItem, name: str | None = None) -> int:
        targets = self.matching(name)
        for stream in targets:
            stream.queue.put_nowait(item)
        return len(targets)


class WireNotification(BaseModel):
    """Any notification: `send_notification` only needs `model_dump` to give method+params."""

    method: str
    params: dict[str, Any] | None = None
