"""Telling session workers at once that a stream should open or close.

A service that changes whether a stream is wanted (a push subscription
created, paused, revoked; consent withdrawn) calls ``held_stream_changed``
inside its transaction; after commit the stream's key is published on one
Redis channel, and every worker re-checks that one key. A lost message only
delays the change until the worker's next reconcile (SESSION_WORKER_RECONCILE).
"""

from __future__ import annotations

import logging
from functools import cache

import redis
from django.conf import settings
from django.db import transaction

from switchboard.sessions.registry import stream_key

log = logging.getLogger(__name__)


@cache
def _client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)


def held_stream_changed(kind: str, item_id: str) -> None:
    """After commit: workers re-check whether ``kind:item_id`` should be held."""
    key = stream_key(kind, item_id)

    def publish() -> None:
        try:
            _client().publish(settings.SESSION_WORKER_CHANNEL, key)
        except redis.RedisError as exc:
            log.warning("could not announce held stream %s: %s", key, exc)

    transaction.on_commit(publish)
