"""A host's server rows for the hot path (lifecycle events on every tool
use), kept per process and checked against a version in the shared cache.

Every save or delete of a server bumps its host's version once the change
commits (bumping inside the transaction would let another process cache the
old rows under the new version). A call then reads one small cache key
instead of the rows. Only the columns evaluation needs are kept; consent,
policy and preferences are never cached here (a revoke counts for the very
next call). If the cache cannot be reached, the rows come from the database.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Iterable

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from switchboard.models import McpServer
from switchboard.shared_cache import shared_cache

log = logging.getLogger(__name__)

FIELDS = ("id", "host_id", "name", "url", "trust", "priority", "updated_at")

_lock = threading.Lock()
# host id -> (version, the host's live servers by id)
_rows: dict[str, tuple[str, dict[str, McpServer]]] = {}


def _key(host_id: str) -> str:
    return f"servers:version:{host_id}"


def _version(host_id: str) -> str | None:
    try:
        cache = shared_cache()
        version = cache.get(_key(host_id))
        if version is None:
            cache.add(_key(host_id), uuid.uuid4().hex, timeout=None)
            version = cache.get(_key(host_id))
    except Exception:
        log.warning("server cache unreachable; reading the rows", exc_info=True)
        return None
    return version


def _load(host_id: str) -> dict[str, McpServer]:
    return {
        server.id: server
        for server in McpServer.objects.filter(
            host_id=host_id, deleted_at__isnull=True, blocked_at__isnull=True
        ).only(*FIELDS)
    }


def host_servers_cached(*, host_id: str, ids: Iterable[str]) -> dict[str, McpServer]:
    """The host's live servers among ``ids`` (evaluation's columns only).
    The instances are shared: read them, never save them."""
    wanted = list(ids)
    if not wanted:
        return {}
    version = _version(host_id)
    with _lock:
        hit = _rows.get(host_id)
    if version is not None and hit is not None and hit[0] == version:
        rows = hit[1]
    else:
        rows = _load(host_id)
        if version is not None:
            with _lock:
                _rows[host_id] = (version, rows)
    return {sid: rows[sid] for sid in wanted if sid in rows}


def host_servers_changed(host_id: str) -> None:
    """Every process reads the host's rows afresh: this one from now on
    (its own transaction sees the change), the others once it commits."""
    with _lock:
        _rows.pop(host_id, None)

    def bump() -> None:
        try:
            shared_cache().set(_key(host_id), uuid.uuid4().hex, timeout=None)
        except Exception:
            # Stale rows would outlive the change: drop this process's copy
            # at least, and say so loudly.
            with _lock:
                _rows.pop(host_id, None)
            log.error("could not bump the server cache version of host %s", host_id)

    transaction.on_commit(bump)


@receiver(post_save, sender=McpServer, dispatch_uid="servers_cached.saved")
@receiver(post_delete, sender=McpServer, dispatch_uid="servers_cached.deleted")
def _server_changed(sender, instance: McpServer, **kwargs) -> None:
    host_servers_changed(instance.host_id)
