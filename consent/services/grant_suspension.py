"""Suspending consent: an active grant whose approved declarations changed,
whose server was registered elsewhere or with other credential names, or
whose server was blocked, stops, and its user is asked again through a
request of its own."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from consent.models import OPEN_STATUSES, Grant, GrantStatus, RequestOrigin, Scope, SuspendedReason
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

# Why a grant is on hold, in the words the ledger, the cards and the request page use.
SUSPENSION_WORDS: dict[str, str] = {
    SuspendedReason.SERVER_BLOCKED: "was blocked by the organisation",
    SuspendedReason.DECLARATIONS_CHANGED: "changed what it declares",
    SuspendedReason.URL_CHANGED: "was pointed to another address",
    SuspendedReason.CREDENTIALS_CHANGED: "is now reached with other credentials",
}


def _suspension_summary(grant: Grant, reason: str) -> str:
    what = SCOPE_WORDS.get(grant.scope, grant.scope)
    why = SUSPENSION_WORDS.get(reason, SUSPENSION_WORDS[SuspendedReason.DECLARATIONS_CHANGED])
    if reason == SuspendedReason.SERVER_BLOCKED:
        return f"{grant.server.name} {why}; consent to {what} is on hold"
    if reason == SuspendedReason.URL_CHANGED:
        was = f" (approved at {grant.server_url})" if grant.server_url else ""
        return (
            f"{grant.server.name} {why}, {grant.server.url}{was}; consent to {what} "
            "is on hold until approved again"
        )
    return f"{grant.server.name} {why}; consent to {what} is on hold until approved again"


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
    grant.suspended_reason = reason
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
            # Where the data went as approved, and where it would go now.
            "approved_server_url": grant.server_url,
            "server_url": grant.server.url,
            "approved_registration_hash": grant.registration_hash,
            "registration_hash": grant.server.registration_hash,
        },
    )
    grant_change_follow(grant, previous_status=GrantStatus.ACTIVE, actor=actor)
    if grant.org_grant is not None:
        # The organisation gave it: an admin approves it again, not the user.
        org_grant_hold(org_grant=grant.org_grant, actor=actor, reason=reason)
    elif grant.server.blocked_at is None:  # nothing to ask while the server is blocked
        origin = (
            RequestOrigin.REGISTRATION_CHANGED
            if reason in (SuspendedReason.URL_CHANGED, SuspendedReason.CREDENTIALS_CHANGED)
            else RequestOrigin.DECLARATIONS_CHANGED
        )
        consent_request_reask(grant=grant, actor=actor, origin=origin)
    return grant


@transaction.atomic
def grants_on_registration_changed(
    *, server: McpServer, actor: Actor, changed: Iterable[str] = ("url",)
) -> list[Grant]:
    """Call after staff changed the server's URL or the names of the headers
    sent to it (in the transaction that stored it). Every active grant that
    was approved under another registration is suspended and its user asked
    again; returns those grants. Safe to call twice: a grant approved under
    the current registration is left alone."""
    reason = (
        SuspendedReason.URL_CHANGED if "url" in changed else SuspendedReason.CREDENTIALS_CHANGED
    )
    current = server.registration_hash
    suspended = []
    grants = Grant.objects.select_related("server", "user").filter(
        server=server, status=GrantStatus.ACTIVE
    )
    for grant in grants.exclude(registration_hash=current):
        suspended.append(grant_suspend(grant=grant, actor=actor, reason=reason))
    return suspended


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
