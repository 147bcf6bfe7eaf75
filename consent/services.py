"""Consent grants: create, approve, deny, revoke. Every change is audited,
broadcast, and (once the host endpoint exists) delivered to the host."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from consent.models import OPEN_STATUSES, Channel, Grant, GrantStatus, Identity, Scope
from switchboard.actors import Actor
from switchboard.errors import Conflict, Invalid
from switchboard.models import McpServer, User
from switchboard.services.audit import audit_record


def declaration_hash(shown: dict) -> str:
    """SHA-256 over the canonical JSON of what the user was shown."""
    canonical = json.dumps(shown, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _record(
    grant: Grant, *, kind: str, actor: Actor, summary: str, detail: dict | None = None
) -> None:
    audit_record(
        host=grant.host_id,
        kind=f"consent.{kind}",
        actor=actor,
        user=grant.user,
        server_id=grant.server_id,
        subject_type="grant",
        subject_id=grant.id,
        summary=summary,
        detail={"scope": grant.scope, "status": grant.status, **(detail or {})},
    )


@transaction.atomic
def grant_request(
    *,
    user: User,
    server: McpServer,
    scope: str,
    actor: Actor,
    shown: dict | None = None,
    identity: str = Identity.HOST,
) -> Grant:
    """Open a pending grant, or return the open one for the same (user, server, scope)."""
    if scope not in Scope.values:
        raise Invalid(f"unknown scope {scope!r}", field="scopes")
    if server.host_id != user.host_id:
        raise Invalid("the server belongs to another host", field="server")
    existing = (
        Grant.objects.select_for_update()
        .filter(user=user, server=server, scope=scope, status__in=OPEN_STATUSES)
        .first()
    )
    if existing is not None:
        return existing
    shown = shown or {}
    grant = Grant.objects.create(
        host_id=user.host_id,
        user=user,
        server=server,
        scope=scope,
        shown=shown,
        declaration_hash=declaration_hash(shown),
        identity=identity,
    )
    _record(grant, kind="requested", actor=actor, summary=f"{server.name} asked for {scope}")
    return grant


@transaction.atomic
def grant_approve(
    *,
    grant: Grant,
    actor: Actor,
    channel: str = Channel.BROWSER,
    hook_ids: list[str] | None = None,
    event_types: list[str] | None = None,
    expires_at: datetime | None = None,
    decided_by: User | None = None,
) -> Grant:
    grant = Grant.objects.select_for_update().get(pk=grant.pk)
    if grant.status not in (GrantStatus.PENDING, GrantStatus.SUSPENDED, GrantStatus.ACTIVE):
        raise Conflict(f"a {grant.status} grant cannot be approved; request consent again")
    if expires_at is not None and expires_at <= timezone.now():
        raise Invalid("expiry must be in the future", field="expires_at")
    grant.status = GrantStatus.ACTIVE
    grant.approved_hook_ids = sorted(set(hook_ids or []))
    grant.approved_event_types = sorted(set(event_types or []))
    grant.channel = channel
    grant.decided_by = decided_by
    grant.granted_at = timezone.now()
    grant.expires_at = expires_at
    grant.save()
    _record(
        grant,
        kind="approved",
        actor=actor,
        summary=f"{grant.server.name} may use {grant.scope}"
        + (" (approved by staff on behalf)" if channel == Channel.STAFF else ""),
        detail={
            "approved_hooks": grant.approved_hook_ids,
            "approved_event_types": grant.approved_event_types,
            "declaration_hash": grant.declaration_hash,
            "channel": channel,
            "expires_at": expires_at.isoformat() if expires_at else None,
        },
    )
    return grant


def _close(grant: Grant, *, status: str, actor: Actor, verb: str) -> Grant:
    grant = Grant.objects.select_for_update().get(pk=grant.pk)
    if grant.status not in OPEN_STATUSES:
        return grant  # already closed: idempotent
    grant.status = status
    if status == GrantStatus.REVOKED:
        grant.revoked_at = timezone.now()
    grant.save()
    _record(grant, kind=status, actor=actor, summary=f"{grant.server.name}: {grant.scope} {verb}")
    return grant


@transaction.atomic
def grant_deny(*, grant: Grant, actor: Actor) -> Grant:
    return _close(grant, status=GrantStatus.DENIED, actor=actor, verb="denied")


@transaction.atomic
def grant_revoke(*, grant: Grant, actor: Actor) -> Grant:
    return _close(grant, status=GrantStatus.REVOKED, actor=actor, verb="revoked")


@transaction.atomic
def grant_expire(*, grant: Grant) -> Grant:
    return _close(grant, status=GrantStatus.EXPIRED, actor=Actor.system(), verb="expired")


@transaction.atomic
def grants_revoke_all(*, user: User, actor: Actor, server: McpServer | None = None) -> int:
    grants = Grant.objects.filter(user=user, status__in=OPEN_STATUSES)
    if server is not None:
        grants = grants.filter(server=server)
    count = 0
    for grant in grants.select_related("server"):
        grant_revoke(grant=grant, actor=actor)
        count += 1
    return count


def grants_expire_due() -> int:
    """Beat: close every active grant whose expiry has passed."""
    due = Grant.objects.filter(status=GrantStatus.ACTIVE, expires_at__lte=timezone.now())
    count = 0
    for grant in due.select_related("server").iterator():
        grant_expire(grant=grant)
        count += 1
    return count


@transaction.atomic
def grants_on_declarations_changed(
    *,
    server: McpServer,
    removed_hook_ids: list[str] = (),
    added_hook_ids: list[str] = (),
    actor: Actor | None = None,
) -> list[Grant]:
    """A server's declarations changed: active hook grants that approved a
    declaration which is gone are suspended until the user approves again."""
    actor = actor or Actor.system("server sync")
    removed = set(removed_hook_ids)
    suspended = []
    for grant in (
        Grant.objects.select_for_update()
        .filter(server=server, scope=Scope.HOOKS, status=GrantStatus.ACTIVE)
        .select_related("server", "user")
    ):
        if removed & set(grant.approved_hook_ids):
            grant.status = GrantStatus.SUSPENDED
            grant.save(update_fields=["status", "updated_at"])
            _record(
                grant,
                kind="suspended",
                actor=actor,
                summary=f"{server.name} changed its hooks; {grant.scope} needs your approval again",
                detail={"removed_hook_ids": sorted(removed & set(grant.approved_hook_ids))},
            )
            suspended.append(grant)
    return suspended
