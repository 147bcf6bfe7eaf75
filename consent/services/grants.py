"""Consent grants: request, approve, deny, revoke, expire (suspending is
``grant_suspension``).

Every change is one append-only ledger entry (``consent.<status>``) and is
followed by ``grant_change_follow``: the host (``consent.updated`` through the
host-event outbox) and the user's and staff's pages hear of it, the consent
requests it belongs to settle, and the other apps react (``grant_changed``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from consent import live
from consent.models import OPEN_STATUSES, Channel, ConsentRequest, Grant, GrantStatus, Scope
from consent.services.notify import grant_change_notify
from consent.services.request_settling import consent_requests_settle
from consent.signals import grant_changed
from consent.snapshots import (
    declarations_now,
    identity_for,
    scope_snapshot,
    snapshot_event_types,
    snapshot_hash,
)
from switchboard import metrics
from switchboard.actors import Actor
from switchboard.errors import Conflict, Invalid
from switchboard.models import McpServer, User
from switchboard.services.audit import audit_record
from switchboard.services.server_block import server_block_refuse

# Kept for callers of the first version of this module.
declaration_hash = snapshot_hash

SCOPE_WORDS: dict[str, str] = {
    Scope.CONVERSATION_READ: "read your messages",
    Scope.HOOKS: "add instructions at agent lifecycle events",
    Scope.EVENTS: "send you events",
}


# Ledger kinds that are a decision, as the metrics name them.
_DECISIONS = {
    "approved": "allowed",
    "denied": "denied",
    "additions_denied": "denied",
    "revoked": "revoked",
    "expired": "expired",
}


def grant_record(
    grant: Grant, *, kind: str, actor: Actor, summary: str, detail: dict | None = None
) -> None:
    decision = _DECISIONS.get(kind)
    if decision is not None:
        scope = grant.scope
        metrics.after_commit(
            lambda: metrics.consent_decisions.labels(scope=scope, decision=decision).inc()
        )
    audit_record(
        host_id=grant.host_id,
        kind=f"consent.{kind}",
        actor=actor,
        user=grant.user,
        server_id=grant.server_id,
        subject_type="grant",
        subject_id=grant.id,
        summary=summary,
        detail={"scope": grant.scope, "status": grant.status, **(detail or {})},
    )


def grant_change_follow(
    grant: Grant,
    *,
    previous_status: str | None,
    actor: Actor,
    answering: ConsentRequest | None = None,
) -> None:
    """After a grant changed, inside the change's transaction:

    1. the host and the pages hear of it (``grant_change_notify``);
    2. the open requests it was the last undecided part of settle, except
       ``answering``, the request whose answer this change is part of (it
       settles itself once every answer is in);
    3. the other apps react (``grant_changed``: subscriptions start or stop).
    """
    grant_change_notify(grant=grant, previous_status=previous_status)
    consent_requests_settle(grant=grant, answering=answering)
    grant_changed.send(sender=Grant, grant=grant, previous_status=previous_status, actor=actor)


@transaction.atomic
def grant_request(
    *,
    user: User,
    server: McpServer,
    scope: str,
    actor: Actor,
    shown: dict | None = None,
    identity: str | None = None,
    event_types: list[str] | None = None,
    handlers: list[dict] | None = None,
) -> Grant:
    """Open a pending grant, or return the open one for the same (user, server, scope).

    The snapshot of what the user will be shown is taken now (``shown``
    overrides it). An open grant asked again is shown the current
    declarations (for ``events``: the union of the types asked so far); an
    active grant keeps what was approved until the user decides again.
    """
    if scope not in Scope.values:
        raise Invalid(f"unknown scope {scope!r}", field="scopes")
    if server.host_id != user.host_id:
        raise Invalid("the server belongs to another host", field="server")
    existing = (
        Grant.objects.select_for_update(no_key=True)
        .select_related("server", "user")
        .filter(user=user, server=server, scope=scope, status__in=OPEN_STATUSES)
        .first()
    )
    if existing is not None:
        if shown is None:
            asked = sorted(set(snapshot_event_types(existing.shown)) | set(event_types or []))
            fresh = scope_snapshot(
                server=server,
                user_id=user.id,
                scope=scope,
                event_types=asked if scope == Scope.EVENTS else None,
            )
            shown_handlers = _handlers_merged(existing.shown, handlers)
            if (
                snapshot_hash(fresh) != existing.declaration_hash
                or shown_handlers != existing.shown.get("handlers", [])
                or fresh.get("server") != existing.shown.get("server")
            ):
                if shown_handlers:
                    fresh["handlers"] = shown_handlers
                existing.shown = fresh
                existing.declaration_hash = snapshot_hash(fresh)
                existing.save(update_fields=["shown", "declaration_hash", "updated_at"])
        return existing
    if shown is None:
        shown = scope_snapshot(server=server, user_id=user.id, scope=scope, event_types=event_types)
        if handlers:
            # Shown to the user beside the event types (MCPE agent handlers);
            # approved with the grant (``approved_shown``).
            shown["handlers"] = _handlers_merged({}, handlers)
    try:
        with transaction.atomic():
            grant = Grant.objects.create(
                host_id=user.host_id,
                user=user,
                server=server,
                scope=scope,
                shown=shown,
                declaration_hash=snapshot_hash(shown),
                identity=identity
                or shown.get("identity")
                or identity_for(user_id=user.id, server=server),
            )
    except IntegrityError:
        # Another request opened it between our read and our insert.
        return Grant.objects.get(user=user, server=server, scope=scope, status__in=OPEN_STATUSES)
    grant_record(
        grant,
        kind="requested",
        actor=actor,
        summary=f"{server.name} asked to {SCOPE_WORDS.get(scope, scope)}",
        detail={"declaration_hash": grant.declaration_hash, "shown": grant.shown},
    )
    grant_change_follow(grant, previous_status=None, actor=actor)
    return grant


def _handlers_merged(shown: dict, handlers: list[dict] | None) -> list[dict]:
    merged = list(shown.get("handlers") or [])
    for handler in handlers or []:
        if handler not in merged:
            merged.append(handler)
    return merged


def _check_still_current(grant: Grant) -> None:
    """Refuse an approval of declarations the server no longer makes, or of a
    server registered elsewhere since (the page re-reads them with
    ``consent_request_refresh`` and asks again)."""
    seen = (grant.shown or {}).get("server")
    if seen is not None and seen.get("registration_hash") != grant.server.registration_hash:
        raise Conflict(
            f"{grant.server.name} was pointed to another address or given other credentials "
            "while you were deciding; review the new version",
            code="registration_changed",
            field=grant.id,
        )
    declared = (grant.shown or {}).get("declarations")
    if declared is None:
        return  # a grant made without a snapshot (kept for older data)
    now = declarations_now(
        server=grant.server,
        scope=grant.scope,
        event_types=snapshot_event_types(grant.shown) if grant.scope == Scope.EVENTS else None,
    )
    if snapshot_hash({"declarations": now}) != grant.declaration_hash:
        raise Conflict(
            f"{grant.server.name} changed what it declares while you were deciding; "
            "review the new version",
            code="declarations_changed",
            field=grant.id,
        )


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
    shown_hash: str | None = None,
    answering: ConsentRequest | None = None,
) -> Grant:
    """Approve what the user saw. ``shown_hash`` is the hash the page showed:
    if the snapshot changed since, nothing is approved (409). ``answering``:
    the request whose answer this is (it settles itself)."""
    grant = (
        Grant.objects.select_for_update(no_key=True)
        .select_related("server", "user")
        .get(pk=grant.pk)
    )
    server_block_refuse(grant.server)
    if grant.status not in OPEN_STATUSES:
        raise Conflict(f"a {grant.status} grant cannot be approved; request consent again")
    if expires_at is not None and expires_at <= timezone.now():
        raise Invalid("expiry must be in the future", field="expires_at")
    if shown_hash is not None and shown_hash != grant.declaration_hash:
        raise Conflict(
            "what you were shown is out of date; review the new version",
            code="declarations_changed",
            field=grant.id,
        )
    _check_still_current(grant)
    previous = grant.status
    now = timezone.now()
    grant.status = GrantStatus.ACTIVE
    grant.approved_hook_ids = sorted(set(hook_ids or []))
    grant.approved_event_types = sorted(set(event_types or []))
    grant.approved_shown = grant.shown
    grant.approved_hash = grant.declaration_hash
    grant.identity = identity_for(user_id=grant.user_id, server=grant.server)
    grant.channel = channel
    grant.decided_by = decided_by
    grant.granted_at = now
    grant.expires_at = expires_at
    grant.suspended_at = None
    grant.suspended_reason = ""
    grant.revoked_at = None
    # The server as approved: a later change of its URL or header names
    # suspends this grant (``grant_suspension.grants_on_registration_changed``).
    grant.server_url = grant.server.url
    grant.registration_hash = grant.server.registration_hash
    grant.save()
    on_behalf = " (approved by staff on the user's behalf)" if channel == Channel.STAFF else ""
    grant_record(
        grant,
        kind="approved",
        actor=actor,
        summary=f"{grant.server.name} may {SCOPE_WORDS.get(grant.scope, grant.scope)}{on_behalf}",
        detail={
            "previous_status": previous,
            "approved_hooks": grant.approved_hook_ids,
            "approved_event_types": grant.approved_event_types,
            "declaration_hash": grant.declaration_hash,
            "shown": grant.shown,
            "identity": grant.identity,
            "server_url": grant.server_url,
            "registration_hash": grant.registration_hash,
            "channel": channel,
            "decided_by": decided_by.id if decided_by else None,
            "expires_at": expires_at.isoformat() if expires_at else None,
        },
    )
    grant_change_follow(grant, previous_status=previous, actor=actor, answering=answering)
    return grant


def _close(
    grant: Grant,
    *,
    status: str,
    actor: Actor,
    verb: str,
    detail: dict | None = None,
    answering: ConsentRequest | None = None,
) -> Grant:
    grant = (
        Grant.objects.select_for_update(no_key=True)
        .select_related("server", "user")
        .get(pk=grant.pk)
    )
    if grant.status not in OPEN_STATUSES:
        return grant  # already closed: idempotent
    previous = grant.status
    grant.status = status
    if status == GrantStatus.REVOKED:
        grant.revoked_at = timezone.now()
    grant.save()
    grant_record(
        grant,
        kind=status,
        actor=actor,
        summary=f"{grant.server.name}: {SCOPE_WORDS.get(grant.scope, grant.scope)} — {verb}",
        detail={"previous_status": previous, **(detail or {})},
    )
    grant_change_follow(grant, previous_status=previous, actor=actor, answering=answering)
    return grant


@transaction.atomic
def grant_deny(*, grant: Grant, actor: Actor, answering: ConsentRequest | None = None) -> Grant:
    return _close(grant, status=GrantStatus.DENIED, actor=actor, verb="denied", answering=answering)


@transaction.atomic
def grant_additions_deny(
    *, grant: Grant, actor: Actor, hook_ids: Iterable[str] = (), event_types: Iterable[str] = ()
) -> Grant:
    """The user said no to what a new request added to an active grant (more
    hooks, more event types). What they allowed before stays allowed: the grant
    stays active, and it shows what was approved again."""
    grant = (
        Grant.objects.select_for_update(no_key=True)
        .select_related("server", "user")
        .get(pk=grant.pk)
    )
    if grant.status != GrantStatus.ACTIVE:
        return grant
    hooks, types = sorted(set(hook_ids)), sorted(set(event_types))
    if grant.approved_shown and grant.declaration_hash != grant.approved_hash:
        grant.shown = grant.approved_shown
        grant.declaration_hash = grant.approved_hash
        grant.save(update_fields=["shown", "declaration_hash", "updated_at"])
    denied = (
        ", ".join(types) if types else f"{len(hooks)} more hook{'s' if len(hooks) != 1 else ''}"
    )
    grant_record(
        grant,
        kind="additions_denied",
        actor=actor,
        summary=f"{grant.server.name}: not allowed {denied}; what was allowed before stays",
        detail={
            "denied_hook_ids": hooks,
            "denied_event_types": types,
            "approved_hooks": grant.approved_hook_ids,
            "approved_event_types": grant.approved_event_types,
        },
    )

    live.server_cards_changed(grant.user)
    return grant


@transaction.atomic
def grant_revoke(*, grant: Grant, actor: Actor, reason: str | None = None) -> Grant:
    """Close it; ``reason`` goes into the ledger (e.g. ``left_group`` for a
    grant an organisation gave to a group the user left)."""
    return _close(
        grant,
        status=GrantStatus.REVOKED,
        actor=actor,
        verb="revoked",
        detail={"reason": reason} if reason else None,
    )


@transaction.atomic
def grant_expire(*, grant: Grant, reason: str = "expiry_reached") -> Grant:
    return _close(
        grant,
        status=GrantStatus.EXPIRED,
        actor=Actor.system(),
        verb="expired",
        detail={"reason": reason},
    )


@transaction.atomic
def grants_revoke_all(*, user: User, actor: Actor, server: McpServer | None = None) -> int:
    """Revoke every open grant of the user (on one server, or everywhere)."""
    grants = Grant.objects.filter(user=user, status__in=OPEN_STATUSES)
    if server is not None:
        grants = grants.filter(server=server)
    count = 0
    for grant in grants.select_related("server", "user"):
        grant_revoke(grant=grant, actor=actor)
        count += 1
    return count


def grants_expire_due() -> int:
    """Beat: close every active grant whose expiry has passed."""
    due = Grant.objects.filter(status=GrantStatus.ACTIVE, expires_at__lte=timezone.now())
    count = 0
    for grant in due.select_related("server", "user").iterator():
        grant_expire(grant=grant)
        count += 1
    return count
