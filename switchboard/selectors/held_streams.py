"""Reads of the session worker's streams (health for pages and the API)."""

from __future__ import annotations

from switchboard.models import HeldStream
from switchboard.sessions.registry import stream_key


def held_stream_of(kind: str, item_id: str) -> HeldStream | None:
    return HeldStream.objects.filter(pk=stream_key(kind, item_id)).first()
