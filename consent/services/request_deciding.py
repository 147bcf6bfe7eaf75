"""Deciding a consent request: the page shows what each undecided grant
declares now (``consent_request_refresh``), the user answers every grant at
once (``consent_request_decide``), and the request settles once, on that
answer (``request_settling``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from consent.models import (
    OPEN_STATUSES,
    Channel,
    ConsentRequest,
    Grant,
    GrantStatus,
    RequestStatus,
    Scope,
)
from consent.services.grants import grant_additions_deny, grant_approve, grant_deny
from consent.services.request_rules import (
    Outcome,
    additions_asked,
    already_allowed,
    approval_outcome,
    needs_answer,
)
from consent.services.request_settling import consent_request_settle
from consent.snapshots import scope_snapshot, snapshot_event_types, snapshot_hash, snapshot_hook_ids
from switchboard.actors import Actor
from switchboard.errors import Conflict, Invalid
from switchboard.models import User

REMEMBER_CHOICES = ("1d", "30d", "forever")


def remember_until(choice: str, *, now: datetime | None = None) -> datetime | None:
    """``1d`` / ``30d`` / ``forever`` → the grant's expiry (durations are settings)."""
    now = now or timezone.now()
    if choice == "1d":
        return now + timedelta(seconds=settings.CONSENT_REMEMBER_SHORT)
    if choice == "30d":
        return now + timedelta(seconds=settings.CONSENT_REMEMBER_LONG)
    if choice == "forever":
        return None
    raise Invalid(f"remember must be one of {', '.join(REMEMBER_CHOICES)}", field="remember")


@transaction.atomic
def consent_request_refresh(*, request: ConsentRequest) -> ConsentRequest:
    """Before showing the page: undecided grants show what the server declares now."""
    for grant in request.grants.select_for_update(no_key=True).select_related("server", "user"):
        if grant.status not in (GrantStatus.PENDING, GrantStatus.SUSPENDED):
            continue
        names = snapshot_event_types(grant.shown)
        if grant.scope == Scope.EVENTS and not names:
            names = list(request.event_types)
        fresh = scope_snapshot(
            server=grant.server,
            user_id=grant.user_id,
            scope=grant.scope,
            event_types=names if grant.scope == Scope.EVENTS else None,
        )
        asked_handlers = (grant.shown or {}).get("handlers")
        if asked_handlers:
            fresh["handlers"] = asked_handlers  # asked by the host, not declared
        if snapshot_hash(fresh) != grant.declaration_hash or fresh != grant.shown:
            grant.shown = fresh
            grant.declaration_hash = snapshot_hash(fresh)
            grant.save(update_fields=["shown", "declaration_hash", "updated_at"])
    return request


@dataclass
class Decision:
    """The user's answer for one grant of a request."""

    allow: bool
    hook_ids: list[str] = field(default_factory=list)
    event_types: list[str] = field(default_factory=list)
    shown_hash: str | None = None


@dataclass(frozen=True)
class _Answering:
    """What every grant's answer shares."""

    request: ConsentRequest
    expires_at: datetime | None
    actor: Actor
    channel: str
    decided_by: User | None


@transaction.atomic
def consent_request_decide(
    *,
    request: ConsentRequest,
    decisions: dict[str, Decision],
    remember: str,
    actor: Actor,
    channel: str = Channel.BROWSER,
    decided_by: User | None = None,
) -> ConsentRequest:
    """Apply the user's answer to every grant of the request at once, then
    settle the request on that answer.

    Allowing a hooks or events scope with nothing ticked counts as not
    allowing it. For a grant that was already active when the request asked,
    the answer covers what the request added (see ``ConsentRequest.additions``);
    what was approved before stays approved.
    """
    request = _open_locked(request)
    answering = _Answering(
        request=request,
        expires_at=remember_until(remember),
        actor=actor,
        channel=channel,
        decided_by=decided_by,
    )
    grants = list(request.grants.select_related("server", "user").order_by("scope"))
    for grant in grants:
        if needs_answer(request, grant) and grant.id not in decisions:
            raise Invalid(f"choose whether to allow {grant.scope}", field=grant.id)
    answered = {
        grant.id: _answer(grant, decisions.get(grant.id), answering)
        for grant in grants
        if not already_allowed(request, grant)
    }
    consent_request_settle(
        request=request, actor=actor, answered=answered, decided_by=decided_by, channel=channel
    )
    request.refresh_from_db()
    return request


def _open_locked(request: ConsentRequest) -> ConsentRequest:
    request = (
        ConsentRequest.objects.select_for_update(no_key=True)
        .select_related("server", "user")
        .get(pk=request.pk)
    )
    if request.status != RequestStatus.PENDING:
        raise Conflict(
            f"this request is already {request.status.replace('_', ' ')}", code="request_closed"
        )
    if request.expires_at <= timezone.now():
        raise Conflict(
            "this request has expired; ask the app to send a new one", code="request_expired"
        )
    return request


def _answer(grant: Grant, decision: Decision | None, answering: _Answering) -> Outcome:
    """Apply the answer for one grant; how it came out, for the request."""
    if grant.status not in OPEN_STATUSES:
        return Outcome.NONE  # closed elsewhere meanwhile (revoked, expired)
    assert decision is not None  # needs_answer: checked for every grant first
    added = additions_asked(answering.request, grant)
    if added is not None:
        return _answer_additions(grant, added, decision, answering)
    if decision.allow and decision.shown_hash not in (None, grant.declaration_hash):
        raise Conflict(
            f"{grant.server.name} changed what it declares while you were deciding; "
            "review the new version",
            code="declarations_changed",
            field=grant.id,
        )
    hooks = sorted(set(decision.hook_ids))
    types = sorted(set(decision.event_types))
    if not set(hooks) <= set(snapshot_hook_ids(grant.shown)):
        raise Invalid("you can only allow hooks this server declares", field=grant.id)
    if not set(types) <= set(snapshot_event_types(grant.shown)):
        raise Invalid("you can only allow event types this server offers", field=grant.id)
    allow = decision.allow and (
        (grant.scope != Scope.HOOKS or hooks) and (grant.scope != Scope.EVENTS or types)
    )
    if allow:
        grant = grant_approve(
            grant=grant,
            actor=answering.actor,
            channel=answering.channel,
            hook_ids=hooks,
            event_types=types,
            expires_at=answering.expires_at,
            decided_by=answering.decided_by,
            shown_hash=decision.shown_hash,
            answering=answering.request,
        )
        return approval_outcome(grant)
    if grant.status == GrantStatus.ACTIVE:
        # Approved meanwhile by another answer (or asked before requests
        # recorded their additions): a "no" here takes nothing back.
        return Outcome.NONE
    grant_deny(grant=grant, actor=answering.actor, answering=answering.request)
    return Outcome.NONE


def _later(current: datetime | None, chosen: datetime | None) -> datetime | None:
    """One grant has one expiry: answering a new ask never shortens what was
    allowed before (None is "until taken back")."""
    if current is None or chosen is None:
        return None
    return max(current, chosen)


def _answer_additions(
    grant: Grant, added: dict[str, list[str]], decision: Decision, answering: _Answering
) -> Outcome:
    """Apply an answer to what a request adds to an active grant, and only to
    that: a "no" leaves what was approved before exactly as it was."""
    hooks, types = set(added["hook_ids"]), set(added["event_types"])
    allowed_hooks = hooks & set(decision.hook_ids) if decision.allow else set()
    allowed_types = types & set(decision.event_types) if decision.allow else set()
    if allowed_hooks or allowed_types:
        grant = grant_approve(
            grant=grant,
            actor=answering.actor,
            channel=answering.channel,
            hook_ids=sorted(set(grant.approved_hook_ids) | allowed_hooks),
            event_types=sorted(set(grant.approved_event_types) | allowed_types),
            expires_at=_later(grant.expires_at, answering.expires_at),
            decided_by=answering.decided_by,
            shown_hash=decision.shown_hash,
            answering=answering.request,
        )
    denied_hooks, denied_types = hooks - allowed_hooks, types - allowed_types
    if denied_hooks or denied_types:
        grant_additions_deny(
            grant=grant, actor=answering.actor, hook_ids=denied_hooks, event_types=denied_types
        )
    if not (denied_hooks or denied_types):
        return Outcome.ALL
    return Outcome.SOME if allowed_hooks or allowed_types else Outcome.NONE
