"""Bearer API-key authentication for host integrations."""

from __future__ import annotations

from ninja.security import HttpBearer

from switchboard.actors import Actor
from switchboard.errors import DomainError
from switchboard.services.hosts import api_key_authenticate

ACTOR_HEADER = "Switchboard-Actor"
ACTOR_MAX = 200


def on_behalf_of(request) -> str:
    """The ``Switchboard-Actor`` header's text ("" when absent): 1–200
    printable characters, else 400 ``invalid_actor``."""
    value = request.headers.get(ACTOR_HEADER)
    if value is None:
        return ""
    if not 1 <= len(value) <= ACTOR_MAX or not value.isprintable():
        raise DomainError(
            f"{ACTOR_HEADER} must be 1–{ACTOR_MAX} printable characters",
            field=ACTOR_HEADER,
            code="invalid_actor",
            status=400,
        )
    return value


class ApiKeyAuth(HttpBearer):
    def authenticate(self, request, token: str):
        key = api_key_authenticate(token)
        if key is None:
            return None  # ninja answers 401; the caller learns nothing else
        request.host = key.host
        request.api_key = key
        request.actor = Actor.for_key(key, on_behalf_of=on_behalf_of(request))
        return key
