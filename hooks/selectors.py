"""Reads for the hooks app, scoped to the caller, and the loaders that feed
the engine (compiled declarations, approvals, preferences) in bulk."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db.models import (
    BooleanField,
    CharField,
    Count,
    F,
    JSONField,
    Max,
    Q,
    QuerySet,
    Value,
)
from django.utils import timezone

from consent.models import Grant, HostPolicy, Scope
from consent.selectors import grant_is_live
from hooks.engine import Permissions, ServerHooks, compile_server
from hooks.models import HookFiring, HookPreference, LifecycleEvent, LifecycleSession
from switchboard.errors import NotFound
from switchboard.models import HookDeclaration, Host, McpServer, User
from switchboard.selectors import servers_for_host

# --- compiled declarations (process-local cache) -----------------------------------

_CACHE_SIZE = 4096
_cache: OrderedDict[str, tuple[tuple, ServerHooks]] = OrderedDict()
_cache_lock = threading.Lock()


def _version(server: McpServer) -> tuple:
    # Declarations only change through a sync, which saves the server (and
    # so bumps updated_at); trust, name and priority are part of the compiled
    # form too.
    return (server.updated_at, server.trust, server.priority, server.name)


def compiled_hooks(*, servers: Sequence[McpServer]) -> list[ServerHooks]:
    """Each server's valid, current declarations, compiled; one query for
    every server whose compiled form is missing or stale, none otherwise."""
    result: dict[str, ServerHooks] = {}
    missing: dict[str, McpServer] = {}
    with _cache_lock:
        for server in servers:
            hit = _cache.get(server.id)
            if hit is not None and hit[0] == _version(server):
                _cache.move_to_end(server.id)
                result[server.id] = hit[1]
            else:
                missing[server.id] = server
    if missing:
        rows: dict[str, list[tuple[str, object, bool]]] = {sid: [] for sid in missing}
        declarations = (
            HookDeclaration.objects.filter(server_id__in=list(missing), removed_at__isnull=True)
            .order_by("server_id", "id")  # sync creates them in the server's order
            .values_list("server_id", "hook_id", "raw", "valid")
        )
        for server_id, hook_id, raw, valid in declarations:
            rows[server_id].append((hook_id, raw, valid))
        with _cache_lock:
            for sid, server in missing.items():
                compiled = compile_server(
                    server_id=sid,
                    name=server.name,
                    trusted=server.trust == "trusted",
                    priority=server.priority,
                    declarations=rows[sid],
                )
                _cache[sid] = (_version(server), compiled)
                result[sid] = compiled
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return [result[server.id] for server in servers]


def compiled_hooks_clear() -> None:
    with _cache_lock:
        _cache.clear()


# --- approvals and preferences -------------------------------------------------------


def permissions_for(*, user: User, host_id: str, server_ids: Iterable[str]) -> Permissions:
    """Live ``hooks`` grants, the host's policy and the user's preferences for
    these servers: one statement (``_permission_rows``), whatever the number
    of servers or hooks. Read from the database on every call so a revoke or
    a mute counts for the very next event."""

    ids = list(server_ids)
    approved: dict[str, frozenset[str]] = {}
    muted: set[tuple[str, str]] = set()
    caps: dict[tuple[str, str], str] = {}
    policy = HostPolicy(host_id=host_id)  # the defaults, unless staff saved one
    for kind, key, hook_id, listed, flag, other_flag, cap in _permission_rows(
        user=user, host_id=host_id, server_ids=ids
    ):
        if kind == _GRANT:
            approved[key] = frozenset(listed or ())
        elif kind == _PREFERENCE:
            if flag:
                muted.add((key, hook_id))
            if cap:
                caps[(key, hook_id)] = cap
        else:
            policy.server_list_mode = key
            policy.listed_server_ids = listed or []
            policy.required_hooks_trusted_only = flag
            policy.context_tools_trusted_only = other_flag
    blocked = frozenset(sid for sid in ids if not policy.allows_server(sid))
    return Permissions(
        approved=approved,
        # The user approves a declaration as shown, its priority included (the
        # priority is part of what its hook_id hashes), so whatever they approved
        # they approved as declared, "required" too.
        approved_as_required=approved,
        muted=frozenset(muted),
        caps=caps,
        blocked_servers=blocked,
        required_trusted_only=policy.required_hooks_trusted_only,
        context_tools_trusted_only=policy.context_tools_trusted_only,
    )


_GRANT, _PREFERENCE, _POLICY = "grant", "preference", "policy"
_ROW = ("kind", "key", "hook", "listed", "flag", "other_flag", "cap")


def _permission_rows(*, user: User, host_id: str, server_ids: list[str]) -> QuerySet[Any]:
    """The three reads of ``permissions_for`` as one ``UNION ALL``, each
    shaped to the same seven columns: (kind, server id or the policy's list
    mode, hook id, approved hook ids or the policy's listed servers, muted
    or required-trusted-only, context-tools-trusted-only, priority cap).
    A round trip each cost more than the reads themselves."""
    text, flag = CharField(), BooleanField()
    no_json = Value(None, output_field=JSONField())
    grants = (
        Grant.objects.live()
        .filter(user_id=user.id, server_id__in=server_ids, scope=Scope.HOOKS)
        .annotate(
            kind=Value(_GRANT, output_field=text),
            key=F("server_id"),
            hook=Value("", output_field=text),
            listed=F("approved_hook_ids"),
            flag=Value(False, output_field=flag),
            other_flag=Value(False, output_field=flag),
            cap=Value("", output_field=text),
        )
        .order_by()  # a model's default order has no place in a UNION
        .values_list(*_ROW)
    )
    preferences = (
        HookPreference.objects.filter(user_id=user.id, server_id__in=server_ids)
        .annotate(
            kind=Value(_PREFERENCE, output_field=text),
            key=F("server_id"),
            hook=F("hook_id"),
            listed=no_json,
            flag=F("muted"),
            other_flag=Value(False, output_field=flag),
            cap=F("max_priority"),
        )
        .order_by()  # a model's default order has no place in a UNION
        .values_list(*_ROW)
    )
    policy = (
        HostPolicy.objects.filter(host_id=host_id)
        .annotate(
            kind=Value(_POLICY, output_field=text),
            key=F("server_list_mode"),
            hook=Value("", output_field=text),
            listed=F("listed_server_ids"),
            flag=F("required_hooks_trusted_only"),
            other_flag=F("context_tools_trusted_only"),
            cap=Value("", output_field=text),
        )
        .order_by()  # a model's default order has no place in a UNION
        .values_list(*_ROW)
    )
    return grants.union(preferences, policy, all=True).order_by()


# --- sessions and timelines ----------------------------------------------------------


def hook_firings_for_user(*, user: User) -> QuerySet[HookFiring]:
    """What hooks injected for one user, newest first (for a combined
    "injected context" view next to conversation context)."""
    return HookFiring.objects.filter(user=user).select_related("server", "session")


def hook_firings_for_host(*, host: Host) -> QuerySet[HookFiring]:
    host_id = host.id
    return HookFiring.objects.filter(host_id=host_id).select_related("server", "session", "user")


def session_get_for_host(*, host: Host, session_id: str) -> LifecycleSession:
    host_id = host.id
    session = LifecycleSession.objects.filter(host_id=host_id, session_id=session_id).first()
    if session is None:
        raise NotFound(
            f"no session {session_id!r} for this host", field="session_id", code="session_not_found"
        )
    return session


def session_get_by_pk_for_host(*, host: Host, pk: str) -> LifecycleSession:
    """For the staff pages, which link sessions by our key."""
    session = LifecycleSession.objects.filter(host=host, pk=pk).first()
    if session is None:
        raise NotFound(
            f"no session {pk!r} for this host", field="session", code="session_not_found"
        )
    return session


def sessions_for_host(*, host: Host) -> QuerySet[LifecycleSession]:
    host_id = host.id
    return LifecycleSession.objects.filter(host_id=host_id).select_related("user")


def _with_firings(events: QuerySet[LifecycleEvent]) -> QuerySet[LifecycleEvent]:
    """Timelines show an event once its records are written (a moment after
    its answer): whole, and exactly when its live entry goes out, so a page
    loaded in between gets it live instead of twice or without its firings."""
    return (
        events.filter(pending__isnull=True)
        .select_related("session", "user")
        .prefetch_related("firings__server")
    )


def timeline_for_session(*, session: LifecycleSession) -> QuerySet[LifecycleEvent]:
    return _with_firings(LifecycleEvent.objects.filter(session=session))


def timeline_for_user(*, user: User) -> QuerySet[LifecycleEvent]:
    return _with_firings(LifecycleEvent.objects.filter(user=user))


def timeline_for_host(*, host: Host) -> QuerySet[LifecycleEvent]:
    host_id = host.id
    return _with_firings(LifecycleEvent.objects.filter(host_id=host_id))


# --- the per-server hooks page -------------------------------------------------------


@dataclass
class HookRow:
    """One declaration as a user (or staff) sees it on the server's page."""

    declaration: HookDeclaration
    approved: bool | None  # None: staff view, no single user
    muted: bool
    max_priority: str
    last_fired_at: object  # datetime | None

    @property
    def raw_json(self) -> str:
        """The declaration as the server sent it, as indented JSON."""
        return json.dumps(self.declaration.raw, indent=2, ensure_ascii=False)


def server_hook_rows(*, server: McpServer, user: User | None) -> list[HookRow]:
    """Current declarations (valid or not) with, for a user, their approval,
    preferences and when each last fired for them; for staff (``user`` None),
    when each last fired for anyone."""

    declarations = list(
        HookDeclaration.objects.filter(server=server, removed_at__isnull=True).order_by("id")
    )
    if user is None:
        return [HookRow(d, None, False, "", d.last_fired_at) for d in declarations]
    grant = grant_is_live(user=user, server_id=server.id, scope="hooks")
    approved = set(grant.approved_hook_ids) if grant else set()
    prefs = {p.hook_id: p for p in HookPreference.objects.filter(user=user, server=server)}
    last = dict(
        HookFiring.objects.filter(user=user, server=server)
        .values("hook_id")
        .annotate(at=Max("created_at"))
        .values_list("hook_id", "at")
    )
    rows = []
    for d in declarations:
        pref = prefs.get(d.hook_id)
        rows.append(
            HookRow(
                d,
                d.hook_id in approved,
                bool(pref and pref.muted),
                pref.max_priority if pref else "",
                last.get(d.hook_id),
            )
        )
    return rows


def server_preference(*, user: User, server: McpServer) -> HookPreference | None:
    """The user's whole-server preference (``hook_id == ""``), if any."""
    return HookPreference.objects.filter(user=user, server=server, hook_id="").first()


def server_ids_for_host(*, host: Host, ids: Iterable[str] | None) -> list[str]:
    """The listed server ids, deduplicated, each checked to be this host's
    (404 on the first that is not)."""

    wanted = list(dict.fromkeys(ids or []))
    if not wanted:
        return []
    found = set(servers_for_host(host=host).filter(pk__in=wanted).values_list("id", flat=True))
    for server_id in wanted:
        if server_id not in found:
            raise NotFound(
                f"no server {server_id!r} for this host", field="servers", code="server_not_found"
            )
    return wanted


def servers_declaring_hooks(*, user: User) -> list[dict[str, Any]]:
    """The host's servers that declare hooks, with how many are declared,
    invalid, and approved by this user (0 for staff, who approve nothing)."""
    servers = (
        McpServer.objects.filter(host_id=user.host_id, deleted_at__isnull=True)
        .annotate(
            declared=Count("hook_declarations", filter=Q(hook_declarations__removed_at=None)),
            invalid=Count(
                "hook_declarations",
                filter=Q(hook_declarations__removed_at=None, hook_declarations__valid=False),
            ),
        )
        .filter(declared__gt=0)
        .order_by("priority", "name")
    )
    approved: dict[str, int] = {}
    if user.is_end_user:
        for server_id, hook_ids in (
            Grant.objects.live()
            .filter(user=user, scope=Scope.HOOKS)
            .values_list("server_id", "approved_hook_ids")
        ):
            approved[server_id] = len(hook_ids or [])
    return [
        {
            "server": s,
            "declared": s.declared,  # type: ignore[attr-defined]  # annotated above
            "invalid": s.invalid,  # type: ignore[attr-defined]
            "approved": approved.get(s.id, 0),
        }
        for s in servers
    ]


def server_get_for_user(*, user: User, server_id: str) -> McpServer:
    server = McpServer.objects.filter(
        pk=server_id, host_id=user.host_id, deleted_at__isnull=True
    ).first()
    if server is None:
        raise NotFound(f"no server {server_id!r}", field="server", code="server_not_found")
    return server


def hook_chars_per_day(*, host: Host, days: int) -> dict[Any, int]:
    """Characters hooks injected per day (UTC dates), for the health page."""
    from django.db.models import Sum
    from django.db.models.functions import TruncDate

    since = timezone.now() - timedelta(days=days)
    rows = (
        HookFiring.objects.filter(host_id=host.id, created_at__gte=since)
        .annotate(day=TruncDate("created_at"))
        .values_list("day")
        .annotate(chars=Sum("chars"))
        .order_by()
    )
    return {day: chars or 0 for day, chars in rows}
