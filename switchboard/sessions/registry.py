"""What the session worker holds, as registered by the apps that want it.

A kind names a family of streams ("push", "listen", …) and gives the worker
three functions. The worker never knows what a stream means; the app never
knows about leases, backoff or other workers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from switchboard.sessions.report import StreamReport

# What one hold ended with: "done" = ended for good (terminated, not wanted
# any more); "reconnect" = open it again after a backoff (a drop, a silence).
HoldOutcome = Literal["done", "reconnect"]


@dataclass(frozen=True)
class HeldKind:
    name: str
    # Sync (database): the ids of every stream of this kind that should be open now.
    wanted: Callable[[], Iterable[str]]
    # Sync (database): whether one id should still be open (asked on wake-ups
    # and before each reconnect).
    still_wanted: Callable[[str], bool]
    # Async: open the stream for one id and hold it until it ends. Raising
    # counts as "reconnect", with the error shown in the stream's health.
    hold: Callable[[str, StreamReport], Awaitable[HoldOutcome]]
    # Sync, optional: the stream's health changed (connected, reconnecting,
    # closed); e.g. tell the pages that show it.
    health_changed: Callable[[str], None] | None = None


_kinds: dict[str, HeldKind] = {}


def held_kind_register(kind: HeldKind) -> None:
    if ":" in kind.name:
        raise ValueError("a held kind's name cannot contain ':'")
    _kinds[kind.name] = kind


def held_kinds() -> dict[str, HeldKind]:
    return dict(_kinds)


def stream_key(kind: str, item_id: str) -> str:
    return f"{kind}:{item_id}"


def split_key(key: str) -> tuple[str, str]:
    kind, _, item_id = key.partition(":")
    return kind, item_id
