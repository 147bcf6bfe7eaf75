"""Live `events/stream` requests, so emits and control actions can reach them.

A push subscription exists only while its request is open (spec §2.5), so
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


class StreamHub:
    def __init__(self) -> None:
        self.open: dict[int, OpenStream] = {}
        self._keys = itertools.count(1)

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
        return stream

    def unregister(self, stream: OpenStream) -> None:
        self.open.pop(stream.key, None)

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
