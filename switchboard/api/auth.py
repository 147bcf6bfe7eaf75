"""Bearer API-key authentication for host integrations."""

from __future__ import annotations

from ninja.security import HttpBearer

from switchboard.actors import Actor
from switchboard.services.hosts import api_key_authenticate


class ApiKeyAuth(HttpBearer):
    def authenticate(self, request, token: str):
        key = api_key_authenticate(token)
        if key is None:
            return None  # ninja answers 401; the caller learns nothing else
        request.host = key.host
        request.api_key = key
        request.actor = Actor.for_key(key)
        return key
