"""Hosts (tenants) and their API keys."""

from __future__ import annotations

import time
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from switchboard import live
from switchboard.actors import Actor
from switchboard.keys import display_prefix, generate_api_key, hash_key, is_well_formed
from switchboard.models import ApiKey, Host
from switchboard.queue import enqueue
from switchboard.services.audit import audit_record


@transaction.atomic
def host_create(
    *, name: str, actor: Actor, allowed_origins: list[str] | None = None
) -> tuple[Host, str]:
    """Create a host and its first API key; returns the key's plaintext (shown once)."""
    host = Host.objects.create(name=name, allowed_origins=allowed_origins or [])
    audit_record(host_id=host.id, kind="host.created", actor=actor, summary=f"Host {name} created")
    _, plaintext = api_key_create(host=host, name="initial", actor=actor)
    return host, plaintext


@transaction.atomic
def api_key_create(*, host: Host, name: str, actor: Actor) -> tuple[ApiKey, str]:
    plaintext = generate_api_key()
    key = ApiKey.objects.create(
        host=host, name=name, prefix=display_prefix(plaintext), hashed=hash_key(plaintext)
    )
    audit_record(
        host_id=host.id,
        kind="api_key.created",
        actor=actor,
        summary=f"API key {key.prefix}… created",
        subject_type="api_key",
        subject_id=key.id,
    )
    return key, plaintext


@transaction.atomic
def api_key_revoke(*, key: ApiKey, actor: Actor) -> ApiKey:
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at", "updated_at"])
        audit_record(
            host_id=key.host_id,
            kind="api_key.revoked",
            actor=actor,
            summary=f"API key {key.prefix}… revoked",
            subject_type="api_key",
            subject_id=key.id,
        )
    return key


def api_key_authenticate(plaintext: str) -> ApiKey | None:
    """Resolve a presented key: one query; malformed keys never reach the
    database. Its use is recorded off the request path (``_use_note``)."""
    if not is_well_formed(plaintext):
        return None
    key = (
        ApiKey.objects.select_related("host")
        .filter(hashed=hash_key(plaintext), revoked_at__isnull=True)
        .first()
    )
    if key is not None:
        _use_note(key)
    return key


# Key id -> when this process last asked for its use to be recorded.
_use_noted: dict[str, float] = {}


def _use_note(key: ApiKey) -> None:
    """Record use at a coarse resolution (API_KEY_LAST_USED_RESOLUTION): at
    most one task per key per window from each process, and the write itself
    in a worker, so a host's call pays for neither."""
    resolution = settings.API_KEY_LAST_USED_RESOLUTION
    now = timezone.now()
    if key.last_used_at is not None and (now - key.last_used_at).total_seconds() <= resolution:
        return
    moment = time.monotonic()
    noted = _use_noted.get(key.pk)
    if noted is not None and moment - noted < resolution:
        return
    _use_noted[key.pk] = moment
    enqueue("switchboard.api_key_used", key.pk, now.isoformat())


def api_key_used(*, key_id: str, at: datetime) -> None:
    """The worker's half of ``_use_note``; never moves the time backwards."""
    keys = ApiKey.objects.filter(pk=key_id)
    if keys.filter(Q(last_used_at__isnull=True) | Q(last_used_at__lt=at)).update(last_used_at=at):
        live.api_key_used(keys.values_list("host_id", flat=True).get())
