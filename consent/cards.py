"""What other apps add to a server's card on "Authorized servers".

The card is consent's page, but what a server does for the user lives in the
apps above consent (its event subscriptions, say). Those apps register a
part here in their ``AppConfig.ready()``; consent renders whatever is
registered without importing them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from switchboard.models import User

# (user, server ids) -> {server id: the items to show on that server's card}
Loader = Callable[[User, list[str]], dict[str, list[Any]]]


@dataclass(frozen=True)
class CardPart:
    name: str
    template: str  # rendered with ``items``, ``card``, ``staff`` in its context
    load: Loader


_parts: dict[str, CardPart] = {}


def card_part_register(part: CardPart) -> None:
    _parts[part.name] = part


def card_parts() -> list[CardPart]:
    return list(_parts.values())
