"""Reads of consent state, always scoped to one user or one host."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from consent.cards import card_parts
from consent.models import (
    OPEN_STATUSES,
    ConsentRequest,
    Grant,
    HostPolicy,
    Injection,
    RequestStatus,
    Scope,
    ServerConversationState,
)
from switchboard.errors import NotFound
from switchboard.models import AuditEntry, HookDeclaration, Host, McpServer, User
from switchboard.patterns import patterns_covered
from switchboard.services.ledger_checkpoints import checkpoint_covering


def grant_is_live(
    *,
    user: User | str,
    server_id: str,
    scope: str,
    hook_id: str | None = None,
    event_type: str | None = None,
    at: datetime | None = None,
) -> Grant | None:
    """The active, unexpired grant that allows this, or None.

    Checked against the database on every call (no cache), so a revoke takes
    effect for the very next message, whichever process handles it.
    """
    now = at or timezone.now()
    user_id = user if isinstance(user, str) else user.id
    grant = (
        Grant.objects.live(at=now).filter(user_id=user_id, server_id=server_id, scope=scope).first()
    )
    if grant is None:
        return None
    if hook_id is not None and hook_id not in grant.approved_hook_ids:
        return None
    if event_type is not None and event_type not in grant.approved_event_types:
        return None
    return grant


def events_grant_covering(
    *, user: User | str, server_id: str, patterns: list[str], at: datetime | None = None
) -> Grant | None:
    """The live ``events`` grant whose approved patterns cover every one of
    ``patterns`` (an MCPE filter's event types; none given = ``*``), or None.
    ``github.issue.*`` is covered by ``github.*`` or by itself, never the
    reverse (``switchboard.patterns``)."""
    grant = grant_is_live(user=user, server_id=server_id, scope=Scope.EVENTS, at=at)
    if grant is None:
        return None
    wanted = patterns or ["*"]
    return grant if not patterns_covered(wanted, grant.approved_event_types or []) else None


def grants_open_of_user(*, user: User, server: McpServer | None = None) -> QuerySet[Grant]:
    """What "take back everything" (from one server, or all) would close."""
    grants = Grant.objects.filter(user=user, status__in=OPEN_STATUSES)
    if server is not None:
        grants = grants.filter(server=server)
    return grants.select_related("server", "org_grant").order_by("server__name", "scope")


def grants_of_user(*, user: User) -> QuerySet[Grant]:
    return Grant.objects.filter(user=user).select_related("server").order_by("-created_at", "-id")


def grant_get_for_host(*, host_id: str, grant_id: str) -> Grant | None:
    return (
        Grant.objects.filter(host_id=host_id, pk=grant_id).select_related("server", "user").first()
    )


def grant_get_for_user(*, user: User, grant_id: str) -> Grant:
    grant = Grant.objects.filter(user=user, pk=grant_id).select_related("server", "user").first()
    if grant is None:
        raise NotFound("no such consent", field="grant_id")
    return grant


def grant_counts_for_host(*, host: Host) -> dict[str, int]:
    """For the staff overview: live grants, and grants still awaiting the user."""
    return {
        "active": Grant.objects.live().filter(host=host).count(),
        "pending": Grant.objects.filter(host=host, status="pending").count(),
    }


def conversation_consented(*, user: User, server_id: str) -> bool:
    """The user holds a live conversation grant for this server."""
    return (
        Grant.objects.live()
        .filter(user=user, server_id=server_id, scope=Scope.CONVERSATION_READ)
        .exists()
    )


# --- consent requests -------------------------------------------------------


def consent_request_get_for_host(*, host: Host, request_id: str) -> ConsentRequest:
    host_id = host.id
    found = (
        ConsentRequest.objects.filter(host_id=host_id, pk=request_id)
        .select_related("server", "user")
        .first()
    )
    if found is None:
        raise NotFound(f"no consent request {request_id!r} for this host", field="id")
    return found


def consent_request_get_for_user(*, user: User, request_id: str) -> ConsentRequest:
    found = (
        ConsentRequest.objects.filter(user=user, pk=request_id)
        .select_related("server", "user", "host")
        .first()
    )
    if found is None:
        raise NotFound("no such consent request", field="id")
    return found


def consent_request_status(request: ConsentRequest, *, now: datetime | None = None) -> str:
    """The status as of now: an open request past its expiry reads as expired
    even before the sweep closes it."""
    now = now or timezone.now()
    if request.status == RequestStatus.PENDING and request.expires_at <= now:
        return RequestStatus.EXPIRED
    return request.status


def consent_requests_pending_for_host(*, host: Host) -> QuerySet[ConsentRequest]:
    host_id = host.id
    return (
        ConsentRequest.objects.filter(
            host_id=host_id, status=RequestStatus.PENDING, expires_at__gt=timezone.now()
        )
        .select_related("server", "user")
        .order_by("-created_at", "-id")
    )


def consent_requests_pending_for_user(*, user: User) -> QuerySet[ConsentRequest]:
    return (
        ConsentRequest.objects.filter(
            user=user, status=RequestStatus.PENDING, expires_at__gt=timezone.now()
        )
        .select_related("server")
        .order_by("-created_at", "-id")
    )


# --- host policy ------------------------------------------------------------


def host_policy_get(*, host_id: str) -> HostPolicy:
    """The host's policy; an unsaved one with the settings' defaults if staff
    never changed it."""
    return HostPolicy.objects.filter(host_id=host_id).first() or HostPolicy(host_id=host_id)


def policy_allows_server(*, server: McpServer, policy: HostPolicy | None = None) -> bool:
    policy = policy or host_policy_get(host_id=server.host_id)
    return policy.allows_server(server.id)


def hook_priority_effective(
    *, server: McpServer, priority: str, policy: HostPolicy | None = None
) -> str:
    """``required`` from an untrusted server counts as ``important`` when the
    host's policy says so (SEP-2282 leaves this to the client)."""
    policy = policy or host_policy_get(host_id=server.host_id)
    return policy.effective_hook_priority(priority=priority, trusted=server.trust == "trusted")


def conversation_disabled(*, server: McpServer) -> ServerConversationState | None:
    state = ServerConversationState.objects.filter(server=server).first()
    return state if state and state.disabled_at else None


# --- the "Authorized servers" page ------------------------------------------


@dataclass
class ServerCard:
    """Everything one user has to do with one server, for one card on the page."""

    server: McpServer
    grants: list[Grant] = field(default_factory=list)
    approved_hooks: list[dict[str, Any]] = field(default_factory=list)
    # What other apps show on the card (consent.cards): [(part, items)].
    parts: list[tuple[Any, list[Any]]] = field(default_factory=list)
    history: list[AuditEntry] = field(default_factory=list)
    pending_request: ConsentRequest | None = None
    disabled: ServerConversationState | None = None

    @property
    def open_grants(self) -> list[Grant]:
        return [g for g in self.grants if g.status in OPEN_STATUSES]

    @property
    def open_grants_user_may_close(self) -> list[Grant]:
        """What "take back everything" would close: not an organisation's
        grant that its members may not turn off."""
        return [g for g in self.open_grants if g.org_grant is None or g.org_grant.user_can_revoke]

    @property
    def last_used_at(self) -> datetime | None:
        used = [g.last_used_at for g in self.grants if g.last_used_at]
        return max(used) if used else None


def authorized_server_cards(
    *, user: User, server_id: str | None = None, history: int = 5
) -> list[ServerCard]:
    """One card per server the user has ever been asked about, servers with
    something open first."""
    grants = (
        Grant.objects.filter(user=user)
        .select_related("server", "org_grant")
        .order_by("scope", "-created_at")
    )
    if server_id is not None:
        grants = grants.filter(server_id=server_id)
    cards: dict[str, ServerCard] = {}
    seen_scopes: set[tuple[str, str]] = set()
    for grant in grants:
        card = cards.setdefault(grant.server_id, ServerCard(server=grant.server))
        # The latest grant per scope: older closed ones live in the history.
        if (grant.server_id, grant.scope) in seen_scopes:
            continue
        seen_scopes.add((grant.server_id, grant.scope))
        card.grants.append(grant)
    if not cards:
        return []
    ids = list(cards)
    hook_ids = {
        hook_id
        for card in cards.values()
        for grant in card.open_grants
        for hook_id in grant.approved_hook_ids
    }
    declarations = {
        d.hook_id: d
        for d in HookDeclaration.objects.filter(server_id__in=ids, hook_id__in=hook_ids)
    }
    loaded = [(part, part.load(user, ids)) for part in card_parts()]
    pending: dict[str, ConsentRequest] = {}
    for request in consent_requests_pending_for_user(user=user).filter(server_id__in=ids):
        pending.setdefault(request.server_id, request)
    disabled = {
        s.server_id: s
        for s in ServerConversationState.objects.filter(
            server_id__in=ids, disabled_at__isnull=False
        )
    }
    for sid, card in cards.items():
        card.approved_hooks = [
            {"hook_id": h, "declaration": declarations.get(h)}
            for grant in card.open_grants
            for h in grant.approved_hook_ids
        ]
        card.parts = [(part, items[sid]) for part, items in loaded if items.get(sid)]
        card.pending_request = pending.get(sid)
        card.disabled = disabled.get(sid)
        card.history = list(
            AuditEntry.objects.filter(
                host_id=user.host_id, user_id=user.id, server_id=sid, kind__startswith="consent."
            ).order_by("-id")[:history]
        )
    return sorted(
        cards.values(), key=lambda c: (not c.open_grants, c.server.priority, c.server.name)
    )


# --- ledger reconstruction --------------------------------------------------


def consent_ledger_entries(*, user: User, at: datetime | None = None) -> QuerySet[AuditEntry]:
    """The user's recorded grant steps, oldest first (up to ``at``): what
    ``consent_at``, ``consent.as_of`` and the evidence page replay."""
    entries = AuditEntry.objects.filter(
        host_id=user.host_id, user_id=user.id, kind__startswith="consent.", subject_type="grant"
    )
    if at is not None:
        entries = entries.filter(at__lte=at)
    return entries.order_by("id")


def consent_at(*, user: User, at: datetime) -> dict[tuple[str, str], dict[str, Any]]:
    """Who allowed what at a past moment, rebuilt from the ledger alone.

    Replays the user's ``consent.*`` entries up to ``at``: for each (server,
    scope) the last status and what the last approval covered. Expiry is
    applied as of ``at`` even if the sweep recorded it later.
    """
    state: dict[tuple[str, str], dict[str, Any]] = {}
    for entry in consent_ledger_entries(user=user, at=at):
        key = (entry.server_id, entry.detail.get("scope", ""))
        current = state.setdefault(key, {"grant_id": entry.subject_id, "status": None})
        current["grant_id"] = entry.subject_id
        current["status"] = entry.detail.get("status")
        if entry.kind == "consent.approved":
            current.update(
                approved_at=entry.at,
                approved_by=entry.actor,
                channel=entry.detail.get("channel"),
                approved_hooks=entry.detail.get("approved_hooks", []),
                approved_event_types=entry.detail.get("approved_event_types", []),
                declaration_hash=entry.detail.get("declaration_hash"),
                expires_at=entry.detail.get("expires_at"),
            )
    for current in state.values():
        expires = current.get("expires_at")
        if current["status"] == "active" and expires and datetime.fromisoformat(expires) <= at:
            current["status"] = "expired"
    return state


# --- injections -------------------------------------------------------------


def injections_of_user(*, user: User) -> QuerySet[Injection]:
    return (
        Injection.objects.filter(user=user).select_related("server").order_by("-created_at", "-id")
    )


def conversation_disabled_by_server(*, host: Host) -> dict[str, ServerConversationState]:
    """Servers whose conversation events are switched off after timeouts."""
    return {
        state.server_id: state
        for state in ServerConversationState.objects.filter(host=host, disabled_at__isnull=False)
    }


def injection_get_for_host(*, host: Host, injection_id: str) -> Injection:
    injection = (
        Injection.objects.filter(pk=injection_id, host=host)
        .select_related("server", "user")
        .first()
    )
    if injection is None:
        raise NotFound(f"no injection {injection_id!r} for this host", field="injection_id")
    return injection


def injections_for_host(*, host: Host) -> QuerySet[Injection]:
    host_id = host.id
    return (
        Injection.objects.filter(host_id=host_id)
        .select_related("server", "user")
        .order_by("-created_at", "-id")
    )


# --- consent evidence (a data-subject request) ------------------------------------


@dataclass
class EvidenceEntry:
    """One recorded consent step of a user, with what they were shown."""

    at: datetime
    kind: str
    summary: str
    actor: str
    server_id: str
    server_name: str
    scope: str
    status: str
    channel: str
    declaration_hash: str
    # What the page showed, verbatim (declaration texts, event types), as
    # indented JSON; empty for steps that showed nothing (a revoke).
    shown: str
    approved: list[str] = field(default_factory=list)
    words: str = ""  # the step in plain words, filled by the page
    # Where the step sits in the host's transparency log, so the record can
    # be checked later (docs/transparency.md): the ledger entry, its leaf,
    # its content hash, and the size of the first checkpoint covering it
    # (None: not yet signed).
    entry_id: int = 0
    leaf_index: int | None = None
    content_hash: str = ""
    covered_by: int | None = None


def consent_evidence(*, user: User) -> list[EvidenceEntry]:
    """Every consent the user was asked for, gave, refused or withdrew, in
    order, from the ledger alone (it is append-only; grants change), each
    with what was shown and its hash."""
    import json

    entries = list(consent_ledger_entries(user=user))
    names = dict(
        McpServer.objects.filter(pk__in={e.server_id for e in entries}).values_list("id", "name")
    )
    evidence = []
    for entry in entries:
        detail = entry.detail or {}
        shown = detail.get("shown")
        evidence.append(
            EvidenceEntry(
                at=entry.at,
                kind=entry.kind.removeprefix("consent."),
                summary=entry.summary,
                actor=entry.actor_label,
                server_id=entry.server_id,
                server_name=names.get(entry.server_id, entry.server_id),
                scope=detail.get("scope", ""),
                status=detail.get("status", ""),
                channel=detail.get("channel", ""),
                declaration_hash=detail.get("declaration_hash")
                or detail.get("approved_hash")
                or "",
                shown=json.dumps(shown, indent=2, sort_keys=True) if shown else "",
                approved=[
                    *detail.get("approved_hooks", []),
                    *detail.get("approved_event_types", []),
                ],
                entry_id=entry.id,
                leaf_index=entry.leaf_index,
                content_hash=entry.content_hash,
                covered_by=_covering_size(user.host_id, entry.leaf_index),
            )
        )
    return evidence


def _covering_size(host_id: str | None, leaf_index: int | None) -> int | None:
    if host_id is None or leaf_index is None:
        return None
    found = checkpoint_covering(host_id, leaf_index)
    return found.tree_size if found else None


# --- health at a glance ----------------------------------------------------------


def conversation_outcomes_by_server(*, host: Host, since: datetime) -> dict[str, dict[str, int]]:
    """Per server name: how its conversation calls ended since ``since``
    (``ok``, ``timeout``, ``error``, ``over_budget``)."""
    from django.db.models import Count

    rows = (
        Injection.objects.filter(host=host, created_at__gte=since, source="console")
        .values_list("server__name", "outcome")
        .annotate(n=Count("id"))
        .order_by()
    )
    out: dict[str, dict[str, int]] = {}
    for name, outcome, n in rows:
        out.setdefault(name, {})[outcome] = n
    return out


def conversation_chars_per_day(*, host: Host, days: int) -> dict[Any, int]:
    """Characters of conversation context injected per day (UTC dates)."""
    from django.db.models import Sum
    from django.db.models.functions import TruncDate

    since = timezone.now() - timedelta(days=days)
    rows = (
        Injection.objects.filter(host=host, created_at__gte=since)
        .annotate(day=TruncDate("created_at"))
        .values_list("day")
        .annotate(chars=Sum("chars"))
        .order_by()
    )
    return {day: chars or 0 for day, chars in rows}
