"""Reads of the session worker's streams (health for pages and the API)."""

from __future__ import annotations

from switchboard.models import HeldStream
from switchboard.sessions.registry import stream_key


def held_stream_of(kind: str, item_id: str) -> HeldStream | None:
    return HeldStream.objects.filter(pk=stream_key(kind, item_id)).first()


def held_streams_of(kind: str, item_ids: list[str]) -> dict[str, HeldStream]:
    """By item id, for those that have a row."""
    keys = [stream_key(kind, item_id) for item_id in item_ids]
    return {row.kind_id: row for row in HeldStream.objects.filter(pk__in=keys)}
