"""Hosts (tenants) and their API keys."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from switchboard.actors import Actor
from switchboard.keys import display_prefix, generate_api_key, hash_key, is_well_formed
from switchboard.models import ApiKey, Host
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
    """Resolve a presented key; malformed keys never reach the database."""
    if not is_well_formed(plaintext):
        return None
    key = (
        ApiKey.objects.select_related("host")
        .filter(hashed=hash_key(plaintext), revoked_at__isnull=True)
        .first()
    )
    if key is None:
        return None
    now = timezone.now()
    resolution = timedelta(seconds=settings.API_KEY_LAST_USED_RESOLUTION)
    # Record use at a coarse resolution: one write per key per minute, not per request.
    if key.last_used_at is None or now - key.last_used_at > resolution:
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        key.last_used_at = now
    return key
