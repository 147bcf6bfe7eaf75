"""Who did something: passed explicitly into every service that writes."""

from __future__ import annotations

from dataclasses import dataclass

from switchboard.models import ActorKind, ApiKey, User


@dataclass(frozen=True)
class Actor:
    kind: str
    id: str = ""
    label: str = ""
    # The person an API call was made for (the ``Switchboard-Actor`` header),
    # recorded beside the key on every ledger entry the call causes.
    on_behalf_of: str = ""

    @classmethod
    def system(cls, label: str = "switchboard") -> Actor:
        return cls(kind=ActorKind.SYSTEM, id="", label=label)

    @classmethod
    def for_key(cls, key: ApiKey, *, on_behalf_of: str = "") -> Actor:
        return cls(
            kind=ActorKind.HOST_KEY,
            id=key.id,
            label=f"API key {key.prefix}…",
            on_behalf_of=on_behalf_of,
        )

    @classmethod
    def for_user(cls, user: User) -> Actor:
        kind = ActorKind.USER if user.is_end_user else ActorKind.STAFF
        return cls(kind=kind, id=user.id, label=user.label)
