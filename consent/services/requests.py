"""Consent requests: a host asks (or a changed server makes us ask again),
the user decides per scope and per item, the request remembers the outcome.

``consent_url`` is a console page (``/consent/<id>/``). To send a user there
signed in, the host issues a login link with that path as ``next``
(``POST /api/v1/users/{external_id}/login-links {"next": "/consent/<id>/"}``);
a user already signed in can open it directly.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from urllib.parse import urljoin, urlsplit

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from consent.models import (
    OPEN_STATUSES,
    Channel,
    ConsentRequest,
    Grant,
    GrantStatus,
    RequestOrigin,
    RequestStatus,
    Scope,
)
from consent.selectors import host_policy_get
from consent.services.grants import (
    grant_additions_deny,
    grant_approve,
    grant_deny,
    grant_expire,
    grant_request,
)
from consent.services.notify import request_change_notify
from consent.snapshots import (
    canonical_json,
    current_event_types,
    current_hooks,
    scope_snapshot,
    snapshot_event_types,
    snapshot_hash,
    snapshot_hook_ids,
)
from switchboard.actors import Actor
from switchboard.errors import Conflict, Forbidden, Invalid
from switchboard.mcp.mcpe import agent_handler_normal
from switchboard.models import Host, McpServer, User
from switchboard.patterns import PatternError, pattern_check
from switchboard.services.audit import audit_record
from switchboard.services.server_block import server_block_refuse

REMEMBER_CHOICES = ("1d", "30d", "forever")


def consent_url(request: ConsentRequest) -> str:
    return f"{settings.PUBLIC_BASE_URL}{consent_path(request)}"


def consent_path(request: ConsentRequest) -> str:
    return f"/consent/{request.id}/"


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


def return_url_check(*, host: Host, return_url: str | None) -> str:
    """Absolute URLs must be on an origin the host registered; relative ones
    (a path, not ``//…``) resolve against the host's first origin."""
    if not return_url:
        return ""
    if len(return_url) > 2000 or any(c in return_url for c in "\r\n\t "):
        raise Invalid("return_url is not a valid URL", field="return_url")
    parts = urlsplit(return_url)
    if not parts.scheme and not parts.netloc:
        if not return_url.startswith("/") or return_url.startswith("//") or "\\" in return_url:
            raise Invalid(
                "a relative return_url must be a path starting with '/'", field="return_url"
            )
        return return_url
    origin = f"{parts.scheme}://{parts.netloc}".lower()
    allowed = {o.rstrip("/").lower() for o in host.allowed_origins}
    if parts.scheme not in ("http", "https") or origin not in allowed:
        raise Invalid(
            "return_url must be on an origin the host registered, or relative",
            field="return_url",
            code="return_url_not_allowed",
        )
    return return_url


def return_link(request: ConsentRequest) -> str:
    """Where "Back to the app" goes."""
    url = request.return_url
    if url.startswith("/") and request.host.allowed_origins:
        return urljoin(request.host.allowed_origins[0].rstrip("/") + "/", url.lstrip("/"))
    return url


def _fingerprint(user: User, server: McpServer, scopes: list[str], event_types: list[str]) -> str:
    key = canonical_json([user.id, server.id, sorted(scopes), sorted(event_types)])
    return hashlib.sha256(key.encode()).hexdigest()


def _validate_scopes(
    *, host: Host, server: McpServer, scopes: list[str], event_types: list[str] | None
) -> tuple[list[str], list[str]]:
    if not scopes:
        raise Invalid("ask for at least one scope", field="scopes")
    unknown = [s for s in scopes if s not in Scope.values]
    if unknown:
        raise Invalid(
            f"unknown scope {unknown[0]!r}; scopes are {', '.join(Scope.values)}", field="scopes"
        )
    scopes = sorted(set(scopes))
    if not host_policy_get(host_id=host.id).allows_server(server.id):
        raise Forbidden(
            "this host's policy does not allow this server",
            field="server",
            code="server_not_allowed",
        )
    if Scope.CONVERSATION_READ in scopes and not server.conversation_events:
        raise Invalid(
            "this server does not ask for conversation events",
            field="scopes",
            code="scope_not_offered",
        )
    if Scope.HOOKS in scopes and not current_hooks(server):
        raise Invalid(
            "this server declares no valid hooks", field="scopes", code="scope_not_offered"
        )
    names: list[str] = []
    if event_types and Scope.EVENTS not in scopes:
        raise Invalid("event_types need the events scope", field="event_types")
    if Scope.EVENTS in scopes and (server.capabilities or {}).get("mcpe"):
        # An MCPE server lists no event types: the request names patterns
        # (github.*), and a subscription runs only under patterns covering its
        # filter (consent.selectors.events_grant_covering). None asked: all.
        names = sorted(set(event_types)) if event_types else ["*"]
        for index, name in enumerate(names):
            try:
                pattern_check(name)
            except PatternError as exc:
                raise Invalid(
                    f"{name!r} {exc}", field=f"event_types[{index}]", code="invalid_pattern"
                ) from None
        return scopes, names
    if Scope.EVENTS in scopes:
        offered = {et.name for et in current_event_types(server)}
        names = sorted(set(event_types)) if event_types else sorted(offered)
        missing = [n for n in names if n not in offered]
        if missing:
            raise Invalid(
                f"the server offers no event type {missing[0]!r}",
                field="event_types",
                code="unknown_event_type",
            )
        if not names:
            raise Invalid(
                "this server offers no event types", field="scopes", code="scope_not_offered"
            )
    return scopes, names


def _agent_handlers(
    *, server: McpServer, scopes: list[str], handlers: list[dict] | None
) -> list[dict]:
    """The agent handlers a request shows (MCPE servers, events scope only)."""
    if not handlers:
        return []
    if Scope.EVENTS not in scopes or not (server.capabilities or {}).get("mcpe"):
        raise Invalid("handlers are shown for the events scope of an MCPE server", field="handlers")
    agents = []
    for index, handler in enumerate(handlers):
        agent = agent_handler_normal(handler)
        if agent is None:
            raise Invalid(
                "only agent handlers are asked for here (bash and webhook handlers are "
                "the host's staff's policy)",
                field=f"handlers[{index}].type",
            )
        agents.append(agent)
    return agents


@transaction.atomic
def consent_request_create(
    *,
    host: Host,
    user: User,
    server: McpServer,
    scopes: list[str],
    actor: Actor,
    event_types: list[str] | None = None,
    return_url: str | None = None,
    origin: str = RequestOrigin.HOST,
    handlers: list[dict] | None = None,
) -> tuple[ConsentRequest, bool]:
    """Open a request (created=True), or answer the same open one (False)."""
    scopes, names = _validate_scopes(
        host=host, server=server, scopes=scopes, event_types=event_types
    )
    server_block_refuse(server)  # after the policy's check: it says why, when it is the policy
    agents = _agent_handlers(server=server, scopes=scopes, handlers=handlers)
    checked_return = return_url_check(host=host, return_url=return_url)
    fingerprint = _fingerprint(user, server, scopes, names + [canonical_json(a) for a in agents])
    existing = (
        ConsentRequest.objects.select_for_update(no_key=True)
        .filter(fingerprint=fingerprint, status=RequestStatus.PENDING)
        .first()
    )
    if existing is not None:
        if existing.expires_at > timezone.now():
            return existing, False
        _expire(existing)
    try:
        with transaction.atomic():
            request = ConsentRequest.objects.create(
                host=host,
                user=user,
                server=server,
                scopes=scopes,
                event_types=names,
                return_url=checked_return,
                origin=origin,
                fingerprint=fingerprint,
                expires_at=timezone.now() + timedelta(seconds=settings.CONSENT_REQUEST_TTL),
            )
    except IntegrityError:
        # The same request raced us and won: answer with it.
        return ConsentRequest.objects.get(
            fingerprint=fingerprint, status=RequestStatus.PENDING
        ), False
    grants = [
        grant_request(
            user=user,
            server=server,
            scope=scope,
            actor=actor,
            event_types=names if scope == Scope.EVENTS else None,
            handlers=agents if scope == Scope.EVENTS else None,
        )
        for scope in scopes
    ]
    request.grants.set(grants)
    request.additions = {
        g.id: _additions_asked(g, names) for g in grants if g.status == GrantStatus.ACTIVE
    }
    if request.additions:
        request.save(update_fields=["additions", "updated_at"])
    audit_record(
        host_id=host.id,
        kind="consent.request_opened",
        actor=actor,
        user=user,
        server_id=server.id,
        subject_type="consent_request",
        subject_id=request.id,
        summary=f"{server.name} asked for your consent ({', '.join(scopes)})",
        detail={
            "scopes": scopes,
            "event_types": names,
            "origin": origin,
            "grants": [g.id for g in grants],
            "expires_at": request.expires_at.isoformat(),
            "additions": request.additions,
        },
    )
    if _settled_status(request, grants) == RequestStatus.APPROVED:
        # Everything asked is allowed already: nothing for the user to decide.
        _request_close(request, status=RequestStatus.APPROVED, actor=actor, grants=grants)
        return request, True

    request_change_notify(request=request)
    return request, True


def _additions_asked(grant: Grant, event_types: list[str]) -> dict[str, list[str]]:
    """What a request adds to a grant that is already active: the hooks the
    server declares that were not approved, the event types asked that were
    not approved (nothing, for reading messages)."""
    if grant.scope == Scope.HOOKS:
        hooks = set(snapshot_hook_ids(grant.shown)) - set(grant.approved_hook_ids)
        return {"hook_ids": sorted(hooks), "event_types": []}
    if grant.scope == Scope.EVENTS:
        return {
            "hook_ids": [],
            "event_types": sorted(set(event_types) - set(grant.approved_event_types)),
        }
    return {"hook_ids": [], "event_types": []}


def additions_open(request: ConsentRequest, grant: Grant) -> dict[str, list[str]] | None:
    """What the user still has to answer about an already-active grant of this
    request (only items the server still declares), or None when the grant was
    not active when asked. An empty answer means "already allowed"."""
    asked = (request.additions or {}).get(grant.id)
    if asked is None:
        return None
    return {
        "hook_ids": sorted(set(asked.get("hook_ids", [])) & set(snapshot_hook_ids(grant.shown))),
        "event_types": sorted(
            set(asked.get("event_types", [])) & set(snapshot_event_types(grant.shown))
        ),
    }


def consent_request_reask(*, grant: Grant, actor: Actor) -> ConsentRequest:
    """A suspended grant: ask its user again, through a request of its own."""
    event_types = snapshot_event_types(grant.shown) if grant.scope == Scope.EVENTS else []
    fingerprint = _fingerprint(grant.user, grant.server, [grant.scope], event_types)
    existing = ConsentRequest.objects.filter(
        fingerprint=fingerprint, status=RequestStatus.PENDING, expires_at__gt=timezone.now()
    ).first()
    if existing is not None:
        existing.grants.add(grant)
        return existing
    request = ConsentRequest.objects.filter(
        fingerprint=fingerprint, status=RequestStatus.PENDING
    ).first()
    if request is not None:
        _expire(request)
    request = ConsentRequest.objects.create(
        host_id=grant.host_id,
        user=grant.user,
        server=grant.server,
        scopes=[grant.scope],
        event_types=event_types,
        origin=RequestOrigin.DECLARATIONS_CHANGED,
        fingerprint=fingerprint,
        expires_at=timezone.now() + timedelta(seconds=settings.CONSENT_REQUEST_TTL),
    )
    request.grants.set([grant])
    audit_record(
        host_id=grant.host_id,
        kind="consent.request_opened",
        actor=actor,
        user=grant.user,
        server_id=grant.server_id,
        subject_type="consent_request",
        subject_id=request.id,
        summary=f"{grant.server.name} changed what it declares; you are asked again",
        detail={"scopes": [grant.scope], "origin": request.origin, "grants": [grant.id]},
    )

    request_change_notify(request=request)
    return request


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


def _settled_status(request: ConsentRequest, grants: list[Grant]) -> str | None:
    """The outcome once no grant of the request is undecided, else None.

    A grant that was already active when asked counts for what the request
    adds to it: with nothing added it says nothing about the answer; with
    something added, only ``consent_request_decide`` knows the answer.
    """
    counted = []
    for grant in grants:
        added = additions_open(request, grant)
        if added is not None and grant.status == GrantStatus.ACTIVE:
            if added["hook_ids"] or added["event_types"]:
                return None
            continue
        counted.append(grant)
    grants = counted
    if not grants:
        return RequestStatus.APPROVED
    if any(g.status in (GrantStatus.PENDING, GrantStatus.SUSPENDED) for g in grants):
        return None
    active = [g for g in grants if g.status == GrantStatus.ACTIVE]
    if not active:
        return RequestStatus.DENIED
    whole = len(active) == len(grants) and all(
        set(g.approved_hook_ids) >= set(snapshot_hook_ids(g.shown))
        and set(g.approved_event_types) >= set(snapshot_event_types(g.shown))
        for g in active
    )
    return RequestStatus.APPROVED if whole else RequestStatus.PARTIALLY_APPROVED


def consent_requests_settle(*, grant: Grant, actor: Actor | None = None) -> None:
    """After a grant changed: close the open requests it was the last undecided part of."""
    for request in grant.requests.select_for_update(no_key=True).filter(
        status=RequestStatus.PENDING
    ):
        grants = list(request.grants.all())
        status = _settled_status(request, grants)
        if status is None:
            continue
        _request_close(
            request,
            status=status,
            actor=actor or Actor.system(),
            grants=grants,
            decided_by=grant.decided_by,
            channel=grant.channel,
        )


def _request_close(
    request: ConsentRequest,
    *,
    status: str,
    actor: Actor,
    grants: list[Grant],
    decided_by: User | None = None,
    channel: str | None = None,
) -> None:
    request.status = status
    request.decided_at = timezone.now()
    request.decided_by = decided_by
    request.channel = channel or request.channel
    request.save(update_fields=["status", "decided_at", "decided_by", "channel", "updated_at"])
    audit_record(
        host_id=request.host_id,
        kind="consent.request_decided",
        actor=actor,
        user=request.user,
        server_id=request.server_id,
        subject_type="consent_request",
        subject_id=request.id,
        summary=f"Consent request of {request.server.name}: {status.replace('_', ' ')}",
        detail={"status": status, "grants": {g.id: g.status for g in grants}},
    )

    request_change_notify(request=request)


# How one grant of a request came out, for the request's own status.
_ALL, _SOME, _NONE = "all", "some", "none"


def _outcome_of(grant: Grant) -> str:
    """A grant that was undecided before the answer: how much of what it
    showed is now allowed."""
    if grant.status != GrantStatus.ACTIVE:
        return _NONE
    whole = set(grant.approved_hook_ids) >= set(snapshot_hook_ids(grant.shown)) and set(
        grant.approved_event_types
    ) >= set(snapshot_event_types(grant.shown))
    return _ALL if whole else _SOME


def _later(current: datetime | None, chosen: datetime | None) -> datetime | None:
    """One grant has one expiry: answering a new ask never shortens what was
    allowed before (None is "until taken back")."""
    if current is None or chosen is None:
        return None
    return max(current, chosen)


def _decide_additions(
    *,
    grant: Grant,
    added: dict[str, list[str]],
    decision: Decision,
    expires_at: datetime | None,
    actor: Actor,
    channel: str,
    decided_by: User | None,
) -> str:
    """Apply an answer to what a request adds to an active grant, and only to
    that: a "no" leaves what was approved before exactly as it was."""
    hooks, types = set(added["hook_ids"]), set(added["event_types"])
    allowed_hooks = hooks & set(decision.hook_ids) if decision.allow else set()
    allowed_types = types & set(decision.event_types) if decision.allow else set()
    if allowed_hooks or allowed_types:
        grant = grant_approve(
            grant=grant,
            actor=actor,
            channel=channel,
            hook_ids=sorted(set(grant.approved_hook_ids) | allowed_hooks),
            event_types=sorted(set(grant.approved_event_types) | allowed_types),
            expires_at=_later(grant.expires_at, expires_at),
            decided_by=decided_by,
            shown_hash=decision.shown_hash,
        )
    denied_hooks, denied_types = hooks - allowed_hooks, types - allowed_types
    if denied_hooks or denied_types:
        grant_additions_deny(
            grant=grant, actor=actor, hook_ids=denied_hooks, event_types=denied_types
        )
    if not (denied_hooks or denied_types):
        return _ALL
    return _SOME if allowed_hooks or allowed_types else _NONE


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
    """Apply the user's answer to every grant of the request at once.

    Allowing a hooks or events scope with nothing ticked counts as not
    allowing it. For a grant that was already active when the request asked,
    the answer covers what the request added (see ``ConsentRequest.additions``);
    what was approved before stays approved.
    """
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
    expires_at = remember_until(remember)
    grants = list(request.grants.select_related("server", "user").order_by("scope"))
    for grant in grants:
        if needs_answer(request, grant) and grant.id not in decisions:
            raise Invalid(f"choose whether to allow {grant.scope}", field=grant.id)
    outcomes: list[str] = []
    for grant in grants:
        if grant.status not in OPEN_STATUSES:
            outcomes.append(_NONE)  # closed elsewhere meanwhile (revoked, expired)
            continue
        added = additions_open(request, grant)
        if added is not None and grant.status == GrantStatus.ACTIVE:
            if added["hook_ids"] or added["event_types"]:
                outcomes.append(
                    _decide_additions(
                        grant=grant,
                        added=added,
                        decision=decisions[grant.id],
                        expires_at=expires_at,
                        actor=actor,
                        channel=channel,
                        decided_by=decided_by,
                    )
                )
            continue  # nothing new asked of it: already allowed, untouched
        decision = decisions[grant.id]
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
                actor=actor,
                channel=channel,
                hook_ids=hooks,
                event_types=types,
                expires_at=expires_at,
                decided_by=decided_by,
                shown_hash=decision.shown_hash,
            )
        elif grant.status == GrantStatus.ACTIVE:
            # Approved meanwhile by another answer (or asked before requests
            # recorded their additions): a "no" here takes nothing back.
            outcomes.append(_NONE)
            continue
        else:
            grant = grant_deny(grant=grant, actor=actor)
        outcomes.append(_outcome_of(grant))
    request.refresh_from_db()
    if request.status == RequestStatus.PENDING:
        if not outcomes or all(o == _ALL for o in outcomes):
            status = RequestStatus.APPROVED
        elif all(o == _NONE for o in outcomes):
            status = RequestStatus.DENIED
        else:
            status = RequestStatus.PARTIALLY_APPROVED
        _request_close(
            request,
            status=status,
            actor=actor,
            grants=list(request.grants.all()),
            decided_by=decided_by,
            channel=channel,
        )
    else:
        # Settled grant by grant as the answers landed; record who decided, once.
        ConsentRequest.objects.filter(pk=request.pk).update(channel=channel, decided_by=decided_by)
    request.refresh_from_db()
    return request


def needs_answer(request: ConsentRequest, grant: Grant) -> bool:
    """Whether the consent form must carry an answer for this grant."""
    if grant.status not in OPEN_STATUSES:
        return False
    added = additions_open(request, grant)
    if added is not None and grant.status == GrantStatus.ACTIVE:
        return bool(added["hook_ids"] or added["event_types"])
    return True


def _expire(request: ConsentRequest) -> None:
    """Close an open request past its expiry; its still-pending grants that no
    other open request asks about expire with it."""
    request.status = RequestStatus.EXPIRED
    request.decided_at = timezone.now()
    request.save(update_fields=["status", "decided_at", "updated_at"])
    audit_record(
        host_id=request.host_id,
        kind="consent.request_expired",
        actor=Actor.system(),
        user=request.user,
        server_id=request.server_id,
        subject_type="consent_request",
        subject_id=request.id,
        summary=f"Consent request of {request.server.name} expired unanswered",
    )
    for grant in request.grants.filter(status=GrantStatus.PENDING):
        if not grant.requests.filter(status=RequestStatus.PENDING).exists():
            grant_expire(grant=grant, reason="request_expired")

    request_change_notify(request=request)


def consent_requests_expire_due() -> int:
    """Beat: expire open requests past their expiry, one transaction each."""
    due = ConsentRequest.objects.filter(
        status=RequestStatus.PENDING, expires_at__lte=timezone.now()
    ).values_list("pk", flat=True)
    count = 0
    for pk in list(due[:500]):
        with transaction.atomic():
            request = (
                ConsentRequest.objects.select_for_update(no_key=True, skip_locked=True)
                .select_related("server", "user")
                .filter(pk=pk, status=RequestStatus.PENDING)
                .first()
            )
            if request is not None:
                _expire(request)
                count += 1
    return count
