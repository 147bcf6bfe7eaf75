"""Opening consent requests: a host asks (``consent_request_create``), or a
server whose declarations changed makes us ask again (``consent_request_reask``).
What may be asked is ``request_asking``'s; the page's link, ``request_links``."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from consent.models import (
    ConsentRequest,
    Grant,
    GrantStatus,
    RequestOrigin,
    RequestStatus,
    Scope,
)
from consent.services.grants import grant_request
from consent.services.notify import request_change_notify
from consent.services.request_asking import (
    request_fingerprint,
    request_handlers_check,
    request_scopes_check,
)
from consent.services.request_expiry import consent_request_expire
from consent.services.request_links import return_url_check
from consent.services.request_settling import consent_request_settle
from consent.snapshots import canonical_json, snapshot_event_types, snapshot_hook_ids
from switchboard.actors import Actor
from switchboard.models import Host, McpServer, User
from switchboard.services.audit import audit_record
from switchboard.services.server_block import server_block_refuse


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
    """Open a request (created=True), or answer the same open one (False).
    A request whose every scope is allowed already closes as approved at once."""
    scopes, names = request_scopes_check(
        host=host, server=server, scopes=scopes, event_types=event_types
    )
    server_block_refuse(server)  # after the policy's check: it says why, when it is the policy
    agents = request_handlers_check(server=server, scopes=scopes, handlers=handlers)
    checked_return = return_url_check(host=host, return_url=return_url)
    fingerprint = request_fingerprint(
        user, server, scopes, names + [canonical_json(a) for a in agents]
    )
    existing = (
        ConsentRequest.objects.select_for_update(no_key=True)
        .filter(fingerprint=fingerprint, status=RequestStatus.PENDING)
        .first()
    )
    if existing is not None:
        if existing.expires_at > timezone.now():
            return existing, False
        consent_request_expire(request=existing)
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
    # Settled at once when everything asked is allowed already: nothing for
    # the user to decide.
    if consent_request_settle(request=request, actor=actor) is None:
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


# What the user reads in the ledger when asked again, by why.
_REASK_SUMMARIES: dict[str, str] = {
    RequestOrigin.HOST: "asks again",
    RequestOrigin.DECLARATIONS_CHANGED: "changed what it declares; you are asked again",
    RequestOrigin.REGISTRATION_CHANGED: (
        "was pointed to another address or given other credentials; you are asked again"
    ),
}


def consent_request_reask(
    *, grant: Grant, actor: Actor, origin: str = RequestOrigin.DECLARATIONS_CHANGED
) -> ConsentRequest:
    """A suspended grant: ask its user again, through a request of its own
    (``origin`` says why, for the page)."""
    event_types = snapshot_event_types(grant.shown) if grant.scope == Scope.EVENTS else []
    fingerprint = request_fingerprint(grant.user, grant.server, [grant.scope], event_types)
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
        consent_request_expire(request=request)
    request = ConsentRequest.objects.create(
        host_id=grant.host_id,
        user=grant.user,
        server=grant.server,
        scopes=[grant.scope],
        event_types=event_types,
        origin=origin,
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
        summary=f"{grant.server.name} {_REASK_SUMMARIES.get(origin, _REASK_SUMMARIES['host'])}",
        detail={"scopes": [grant.scope], "origin": request.origin, "grants": [grant.id]},
    )

    request_change_notify(request=request)
    return request
