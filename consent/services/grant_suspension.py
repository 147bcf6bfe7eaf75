"""Suspending consent: an active grant whose approved declarations changed
(or whose server was blocked) stops, and its user is asked again through a
request of its own."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from consent.models import OPEN_STATUSES, Grant, GrantStatus, Scope
from consent.services.grants import SCOPE_WORDS, grant_change_follow, grant_record
from consent.services.org_grants import org_grant_hold
from consent.services.request_opening import consent_request_reask
from consent.snapshots import (
    declarations_now,
    scope_snapshot,
    snapshot_changes,
    snapshot_event_types,
    snapshot_hash,
)
from switchboard.actors import Actor
from switchboard.models import McpServer


def _suspension_summary(grant: Grant, reason: str) -> str:
    what = SCOPE_WORDS.get(grant.scope, grant.scope)
    if reason == "server_blocked":
        return f"{grant.server.name} was blocked by the organisation; consent to {what} is on hold"
    return f"{grant.server.name} changed what it declares; consent to {what} is on hold until approved again"


@transaction.atomic
def grant_suspend(*, grant: Grant, actor: Actor, reason: str = "declarations_changed") -> Grant:
    """Stop an active grant because what it approved changed (or its server
    was blocked); ask the user again (``consent_request_reask``) unless the
    server is blocked.

    The grant then shows the server's current declarations; ``approved_shown``
    keeps what was approved, so the page can say what changed.
    """
    grant = (
        Grant.objects.select_for_update(no_key=True)
        .select_related("server", "user")
        .get(pk=grant.pk)
    )
    if grant.status != GrantStatus.ACTIVE:
        return grant
    names = snapshot_event_types(grant.approved_shown) or grant.approved_event_types
    fresh = scope_snapshot(
        server=grant.server,
        user_id=grant.user_id,
        scope=grant.scope,
        event_types=names if grant.scope == Scope.EVENTS else None,
    )
    grant.status = GrantStatus.SUSPENDED
    grant.suspended_at = timezone.now()
    grant.shown = fresh
    grant.declaration_hash = snapshot_hash(fresh)
    grant.save()
    grant_record(
        grant,
        kind="suspended",
        actor=actor,
        summary=_suspension_summary(grant, reason),
        detail={
            "previous_status": GrantStatus.ACTIVE,
            "reason": reason,
            "approved_hash": grant.approved_hash,
            "declaration_hash": grant.declaration_hash,
            "changes": snapshot_changes(grant.approved_shown, fresh),
        },
    )
    grant_change_follow(grant, previous_status=GrantStatus.ACTIVE, actor=actor)
    if grant.org_grant is not None:
        # The organisation gave it: an admin approves it again, not the user.
        org_grant_hold(org_grant=grant.org_grant, actor=actor, reason=reason)
    elif grant.server.blocked_at is None:  # nothing to ask while the server is blocked
        consent_request_reask(grant=grant, actor=actor)
    return grant


def _approved_declarations_changed(grant: Grant) -> bool:
    if grant.scope == Scope.CONVERSATION_READ:
        return False
    names = snapshot_event_types(grant.approved_shown) or grant.approved_event_types
    now = declarations_now(
        server=grant.server,
        scope=grant.scope,
        event_types=names if grant.scope == Scope.EVENTS else None,
    )
    return snapshot_hash({"declarations": now}) != grant.approved_hash


@transaction.atomic
def grants_on_declarations_changed(
    *,
    server: McpServer,
    removed_hook_ids: Iterable[str] = (),
    added_hook_ids: Iterable[str] = (),
    actor: Actor | None = None,
) -> list[Grant]:
    """Call after a server's hook declarations or event types changed (in the
    transaction that stored them). Returns the grants it suspended.

    Works from the database, not from the arguments (kept for the ledger), so
    it is safe to call more than once and after any kind of change:

    1. active grants whose approved declarations no longer hash the same are
       suspended, and their users asked again;
    2. pending and suspended grants are re-shown the current declarations.
    """
    actor = actor or Actor.system("server sync")
    suspended = []
    grants = (
        Grant.objects.select_related("server", "user")
        .filter(server=server, status__in=OPEN_STATUSES)
        .exclude(scope=Scope.CONVERSATION_READ)
    )
    for grant in grants:
        if grant.status == GrantStatus.ACTIVE:
            if _approved_declarations_changed(grant):
                suspended.append(grant_suspend(grant=grant, actor=actor))
            continue
        names = snapshot_event_types(grant.shown)
        fresh = scope_snapshot(
            server=server,
            user_id=grant.user_id,
            scope=grant.scope,
            event_types=names if grant.scope == Scope.EVENTS else None,
        )
        if snapshot_hash(fresh) != grant.declaration_hash:
            grant.shown = fresh
            grant.declaration_hash = snapshot_hash(fresh)
            grant.save(update_fields=["shown", "declaration_hash", "updated_at"])
    return suspended
