"""``POST /sessions/{session_id}/lifecycle``: evaluate one lifecycle event.

``lifecycle_event_handle`` is these steps, each a function of its own:

1. ``event_validate``: an event name we know.
2. ``session_claim``: the user, the listed servers (this host's), the
   session (first use claims it for this host and user; it belongs to at
   most one thread) and the thread (``thread_claim``).
3. ``session_servers``: the session's servers, from a process cache.
4. ``event_evaluate``: the engine, outside any lock: compiled hooks from a
   process cache, matched against the event's facts; then
5. ``hooks_consent``: approvals, policy and preferences (three queries, none
   when no hook applies) select the candidates; flood control admits a few.
6. ``context_tools_run``: the admitted ``context_tool`` hooks, called
   concurrently on pooled sessions, bounded, each asking ``consent.enforce``
   right before it leaves; consent is read again after them.
7. ``flood_state_apply``, in one transaction with the session row locked:
   admit again against the fresh firing history (a concurrent event may
   have fired the same hook), apply the character caps, save the history.
8. ``event_record``, in that transaction: the event's row, carrying what is
   left to write; the firings, their ledger entries and the live timeline
   entry are written by a worker after commit (``hooks.services.records``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from consent.enforce import consent_readable
from hooks import engine
from hooks.engine import HOOK_EVENTS, Candidate, Fired, Suppression, ToolFailure
from hooks.models import HookFiring, LifecycleEvent, LifecycleSession, RefreshTrigger
from hooks.selectors import compiled_hooks, permissions_for, server_ids_for_host
from hooks.services.context_tools import LATE, ToolCall, context_tools_call
from hooks.services.records import (
    firings_planned,
    records_pending,
    records_write_soon,
    suppression_dict,
)
from hooks.services.threads import (
    RefreshAnswer,
    thread_baseline_schedule,
    thread_claim,
    thread_refresh_refuse,
    thread_refresh_request,
)
from switchboard import metrics
from switchboard.actors import Actor
from switchboard.errors import Conflict, DomainError, Forbidden, Invalid, NotFound
from switchboard.mcp import refresh_thread_id
from switchboard.models import Host, McpServer, User
from switchboard.selectors import live_end_user, servers_for_host, user_get_for_host
from switchboard.selectors.mcp_targets import mcp_targets_for
from switchboard.selectors.servers_cached import host_servers_cached
from switchboard.services.audit import audit_record
from switchboard.trust import server_text_trust


def limits_from_settings() -> engine.Limits:
    return engine.Limits(
        max_hooks_per_event=settings.HOOK_MAX_PER_EVENT,
        max_chars_per_event=settings.HOOK_MAX_CHARS_PER_EVENT,
        max_chars_per_server=settings.HOOK_MAX_CHARS_PER_SERVER,
        cooldown=settings.HOOK_COOLDOWN,
        session_rate_limit=settings.HOOK_SESSION_RATE_LIMIT,
        session_rate_window=settings.HOOK_SESSION_RATE_WINDOW,
    )


@dataclass
class LifecycleInput:
    session_id: str
    user: str
    event: str
    thread_id: str | None = None
    servers: Sequence[str] | None = None
    tool_name: str | None = None
    tool_input: Any = None
    tool_output: Any = None
    tool_server: str | None = None
    project_name: str | None = None
    # A host's own event name and its agent (``hooks.services.native``).
    dialect: str | None = None
    native_event: str = ""


@dataclass
class LifecycleOutcome:
    record: LifecycleEvent
    fired: list[tuple[Fired, HookFiring]]
    suppressed: list[Suppression]
    refresh: RefreshAnswer | None
    notices: list[dict[str, Any]] = field(default_factory=list)
    late: list[dict[str, str]] = field(default_factory=list)
    native: dict[str, str | None] | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "event_id": self.record.id,
            "injections": [
                {
                    "server": f.candidate.hook.server_id,
                    "hook_id": f.candidate.hook.hook_id,
                    "priority": f.candidate.hook.priority,
                    "effective_priority": f.candidate.effective_priority,
                    "text": f.text,
                    "trust": server_text_trust(trusted=f.candidate.server.trusted),
                    "source": f.source,
                    "downgraded": list(f.candidate.downgraded),
                    "firing_id": row.id,
                }
                for f, row in self.fired
            ],
            "suppressed": [suppression_dict(s) for s in self.suppressed],
            "notices": self.notices,
            "late": self.late,
        }
        if self.refresh is not None:
            out["refresh"] = self.refresh.as_dict()
        if self.native is not None:
            out["native"] = self.native
        return out


# --- validation and claims ------------------------------------------------


def _reject_event(*, host: Host, actor: Actor, data: LifecycleInput) -> None:
    audit_record(
        host_id=host.id,
        kind="hook.event_rejected",
        actor=actor,
        subject_type="lifecycle_session",
        subject_id=data.session_id[:60],
        summary=f"Lifecycle event refused: unknown event {data.event[:60]!r}",
        detail={
            "session_id": data.session_id,
            "event": data.event[:200],
            "reason": "unknown_event",
        },
    )
    raise Invalid(
        f"event must be one of {', '.join(HOOK_EVENTS)}", field="event", code="unknown_event"
    )


def _session_check(
    session: LifecycleSession, *, host: Host, user: User, data: LifecycleInput
) -> None:
    if session.host_id != host.id:
        raise NotFound(
            f"no session {data.session_id!r} for this host",
            field="session_id",
            code="session_not_found",
        )
    if session.user_id != user.id:
        raise Forbidden(
            "this session belongs to another user", field="user", code="session_user_mismatch"
        )
    if data.thread_id and session.thread_id and session.thread_id != data.thread_id:
        raise Conflict(
            f"this session belongs to thread {session.thread_id!r}",
            field="thread_id",
            code="session_thread_mismatch",
        )


def _known_session(*, host: Host, data: LifecycleInput) -> LifecycleSession | None:
    """The session with its user, in one read, when it is this host's and
    the named user's (the common case: every call after the first). Anything
    else goes the long way, where the errors are told apart."""
    return (
        LifecycleSession.objects.select_related("user")
        .filter(live_end_user(data.user, via="user"), session_id=data.session_id, host=host)
        .first()
    )


def _listed_servers(
    *, host: Host, known: LifecycleSession | None, ids: Sequence[str] | None
) -> list[str]:
    """The servers the call lists, checked to be the host's: those the
    session already has were checked when they were added."""
    wanted = list(dict.fromkeys(ids or []))
    if known is not None and all(sid in known.server_ids for sid in wanted):
        return wanted
    return server_ids_for_host(host=host, ids=wanted)


def _session_claim(
    *,
    host: Host,
    user: User,
    data: LifecycleInput,
    server_ids: list[str],
    known: LifecycleSession | None,
) -> tuple[LifecycleSession, list[str]]:
    """The session, checked; claimed (created, thread bound, servers added)
    when this call changes it. The common case — a known session, nothing
    new — is the read ``_known_session`` already made."""
    session = known or LifecycleSession.objects.filter(session_id=data.session_id).first()
    if session is not None:
        _session_check(session, host=host, user=user, data=data)
        unchanged = (not data.thread_id or session.thread_id == data.thread_id) and all(
            sid in session.server_ids for sid in server_ids
        )
        if unchanged:
            return session, []
    return _session_claim_locked(host=host, user=user, data=data, server_ids=server_ids)


@transaction.atomic
def _session_claim_locked(
    *, host: Host, user: User, data: LifecycleInput, server_ids: list[str]
) -> tuple[LifecycleSession, list[str]]:
    """Get (locked) or create the session, bind its thread, add servers.
    Returns it and the server ids new to its thread (they need a baseline
    snapshot)."""
    session = (
        LifecycleSession.objects.select_for_update(no_key=True)
        .filter(session_id=data.session_id)
        .first()
    )
    if session is None:
        try:
            with transaction.atomic():
                session = LifecycleSession.objects.create(
                    session_id=data.session_id, host=host, user=user, server_ids=[]
                )
        except IntegrityError:
            session = LifecycleSession.objects.select_for_update(no_key=True).get(
                session_id=data.session_id
            )
    _session_check(session, host=host, user=user, data=data)
    changed = []
    if data.thread_id and not session.thread_id:
        session.thread_id = data.thread_id
        changed.append("thread_id")
    new_servers = [sid for sid in server_ids if sid not in session.server_ids]
    if new_servers:
        session.server_ids = [*session.server_ids, *new_servers]
        changed.append("server_ids")
    if changed:
        session.save(update_fields=[*changed, "updated_at"])
    joined: list[str] = []
    if session.thread_id and changed:
        # The thread's servers are the union of those listed for it; a
        # session's calls are calls for its thread.
        joined = thread_claim(
            host_id=host.id, thread_id=session.thread_id, server_ids=session.server_ids
        )
    return session, joined


def _tool_servers(
    host: Host, tool_server: str | None, servers: Mapping[str, McpServer]
) -> set[str]:
    """Every name the tool's server answers to, for ``matcher.tool_server``:
    what the host sent and, for one of our servers, its id and name (looked
    up among the session's servers first, then the host's)."""
    if not tool_server:
        return set()
    names = {tool_server}
    known = [s for s in servers.values() if tool_server in (s.id, s.name)]
    if known:
        for server in known:
            names.update((server.id, server.name))
        return names
    for server_id, name in (
        servers_for_host(host=host)
        .filter(Q(pk=tool_server) | Q(name=tool_server))
        .values_list("id", "name")
    ):
        names.update((server_id, name))
    return names


# --- context tools ---------------------------------------------------------


def _still_allowed(
    admitted: Sequence[Candidate], matched: engine.Matched, permissions: engine.Permissions
) -> tuple[list[Candidate], list[Suppression]]:
    """Keep the admitted candidates that fresh permissions still allow."""
    _, now_suppressed = engine.select_matched(matched, permissions)
    refused = {s.hook_id: s for s in now_suppressed}
    kept = [c for c in admitted if c.hook.hook_id not in refused]
    return kept, [refused[c.hook.hook_id] for c in admitted if c.hook.hook_id in refused]


def _tool_calls(
    user: User, admitted: Sequence[Candidate], servers: Mapping[str, McpServer]
) -> list[ToolCall]:
    wanted = [c for c in admitted if c.hook.context_tool is not None]
    if not wanted:
        return []
    timeout = settings.HOOK_CONTEXT_TOOL_TIMEOUT
    targets = mcp_targets_for(
        user_id=user.id,
        servers={servers[c.hook.server_id] for c in wanted if servers[c.hook.server_id].url},
        timeout=timeout,
    )
    calls = []
    for candidate in wanted:
        target = targets.get(candidate.hook.server_id)
        calls.append(
            ToolCall(
                hook_id=candidate.hook.hook_id,
                server_id=candidate.hook.server_id,
                user_id=user.id,
                target=target,
                name=candidate.hook.context_tool or "",
                arguments=candidate.arguments or {},
            )
        )
    return calls


def _readiness_wait(event: str) -> float:
    """How long a context tool's server still starting is waited for: at
    session start (servers start with the session), HOOK_READINESS_WAIT."""
    return settings.HOOK_READINESS_WAIT if event == "session_start" else 0.0


# --- record ----------------------------------------------------------------


def _touch_due(session: LifecycleSession, moment: datetime) -> bool:
    """A session's last event time is kept to LIFECYCLE_SESSION_TOUCH (for
    the lists that sort by it): most calls that fire nothing write nothing
    to the session."""
    last = session.last_event_at
    return last is None or (moment - last).total_seconds() >= settings.LIFECYCLE_SESSION_TOUCH


def _prune(recent: Sequence[float], now: float, window: float) -> list[float]:
    return [at for at in recent if at > now - window]


def _refresh_signal(
    *, session: LifecycleSession, user: User, signalled: str, actor: Actor
) -> RefreshAnswer:
    if session.thread_id != signalled:
        reason = "foreign_thread" if session.thread_id else "session_has_no_thread"
        return thread_refresh_refuse(
            host_id=session.host_id,
            thread_id=signalled,
            user=user,
            reason=reason,
            actor=actor,
            detail={"session_id": session.session_id, "session_thread": session.thread_id},
        )
    return thread_refresh_request(
        host_id=session.host_id,
        thread_id=signalled,
        user=user,
        trigger=RefreshTrigger.TOOL_OUTPUT,
        actor=actor,
    )


# --- the steps ----------------------------------------------------------------------


@dataclass
class Evaluation:
    """What the engine decided, carried from step to step."""

    facts: engine.EventFacts
    notices: list[dict[str, Any]]
    matched: engine.Matched
    admitted: list[Candidate]
    suppressed: list[Suppression]
    held: list[Suppression]
    tool_results: dict[str, str | ToolFailure] = field(default_factory=dict)
    latencies: dict[str, int] = field(default_factory=dict)

    @property
    def late(self) -> list[dict[str, str]]:
        """Hooks whose server was still starting past the readiness wait
        (a ``hook_id`` is ``"<server id>:<hex>"``)."""
        return [
            {"server": hook_id.rpartition(":")[0], "hook_id": hook_id}
            for hook_id, result in self.tool_results.items()
            if isinstance(result, ToolFailure) and result.reason == LATE
        ]


def event_validate(*, host: Host, actor: Actor, data: LifecycleInput) -> None:
    """Step 1: an event name this service knows (else 422, and a ledger entry)."""
    if data.event not in HOOK_EVENTS:
        _reject_event(host=host, actor=actor, data=data)


def session_claim(*, host: Host, data: LifecycleInput) -> tuple[LifecycleSession, User]:
    """Step 2: the session and its user, checked, claimed when this call
    changes it; servers new to its thread get their baseline snapshot."""
    known = _known_session(host=host, data=data)
    user = known.user if known else user_get_for_host(host=host, external_id=data.user)
    listed = _listed_servers(host=host, known=known, ids=data.servers)
    session, joined = _session_claim(
        host=host, user=user, data=data, server_ids=listed, known=known
    )
    if joined:
        thread_baseline_schedule(host_id=host.id, thread_id=session.thread_id, user=user)
    return session, user


def session_servers(*, host: Host, session: LifecycleSession) -> dict[str, McpServer]:
    """Step 3: the session's servers, from the process's copy while no server
    of the host has changed (only what evaluation needs: capabilities and
    encrypted headers stay in the database unless a context tool needs them)."""
    return host_servers_cached(host_id=host.id, ids=session.server_ids)


def event_evaluate(
    *,
    host: Host,
    user: User,
    session: LifecycleSession,
    data: LifecycleInput,
    servers: Mapping[str, McpServer],
    limits: engine.Limits,
) -> Evaluation:
    """Step 4: the engine: the event's facts, the hooks that match, consent
    and preferences for them (``hooks_consent``), flood control against the
    session's history (outside any lock), the admitted few rendered."""
    ordered = [servers[sid] for sid in session.server_ids if sid in servers]
    facts, notices = engine.event_facts(
        event=data.event,
        session_id=data.session_id,
        tool_name=data.tool_name,
        tool_input=data.tool_input,
        tool_output=data.tool_output,
        tool_servers=_tool_servers(host, data.tool_server, servers),
        project_name=data.project_name,
        max_io_chars=settings.LIFECYCLE_TOOL_IO_MAX_CHARS,
    )
    matched = engine.match(compiled_hooks(servers=ordered), facts)
    candidates, suppressed = engine.select_matched(
        matched, hooks_consent(user=user, host=host, server_ids=[s.server_id for s, _ in matched])
    )
    history = engine.FloodState(session.last_fired, session.recent_firings)
    admitted, held = engine.admit(candidates, history, limits, time.time())
    return Evaluation(
        facts=facts,
        notices=notices,
        matched=matched,
        admitted=engine.render(admitted, facts),
        suppressed=suppressed,
        held=held,
    )


def hooks_consent(*, user: User, host: Host, server_ids: Sequence[str]) -> engine.Permissions:
    """Step 5 (and again after the tool calls): live ``hooks`` grants, the
    host's policy and the user's preferences, read from the database every
    time; none at all (no query) when no hook applies."""
    if not server_ids:
        return engine.Permissions()
    with consent_readable():
        return permissions_for(user=user, host_id=host.id, server_ids=server_ids)


def context_tools_run(
    *, user: User, event: str, evaluation: Evaluation, servers: Mapping[str, McpServer]
) -> None:
    """Step 6: the admitted ``context_tool`` hooks, called concurrently on
    pooled sessions, each asking ``consent.enforce`` right before it leaves
    (``hooks.services.context_tools``). The calls took time: a revoke or a
    mute that landed meanwhile wins (consent read again)."""
    outcomes = context_tools_call(
        _tool_calls(user, evaluation.admitted, servers),
        timeout=settings.HOOK_CONTEXT_TOOL_TIMEOUT,
        ready_wait=_readiness_wait(event),
    )
    if not outcomes:
        return
    evaluation.tool_results = {k: v.result for k, v in outcomes.items()}
    evaluation.latencies = {k: v.latency_ms for k, v in outcomes.items()}
    host_id = servers[evaluation.admitted[0].hook.server_id].host_id
    with consent_readable():
        fresh = permissions_for(
            user=user, host_id=host_id, server_ids=[c.hook.server_id for c in evaluation.admitted]
        )
    evaluation.admitted, withdrawn = _still_allowed(evaluation.admitted, evaluation.matched, fresh)
    evaluation.suppressed.extend(withdrawn)


def flood_state_apply(
    session: LifecycleSession,
    evaluation: Evaluation,
    limits: engine.Limits,
    *,
    moment: datetime,
) -> tuple[LifecycleSession, list[Fired], list[Suppression]]:
    """Step 7, inside the record's transaction: admit again against the
    session's flood state read under its lock (a concurrent call may have
    fired meanwhile), apply the character caps, and save the new state.
    With nothing admitted there is nothing to decide and nothing to write
    but, now and then, the session's last event time. Returns what fired
    and what the second pass held back, with the session as read."""
    if evaluation.admitted:
        session = LifecycleSession.objects.select_for_update(no_key=True).get(pk=session.pk)
    now = time.time()
    fresh = engine.FloodState(session.last_fired, session.recent_firings)
    admitted, late = engine.admit(evaluation.admitted, fresh, limits, now)
    fired, over = engine.budget(admitted, evaluation.tool_results, limits)
    if admitted:
        last_fired = dict(session.last_fired)
        for f in fired:
            last_fired[f.candidate.hook.hook_id] = now
        # Cooldowns that ran out are forgotten, so the map stays small.
        session.last_fired = {k: v for k, v in last_fired.items() if now - v < limits.cooldown}
        session.recent_firings = _prune(
            [*session.recent_firings, *([now] * len(fired))], now, limits.session_rate_window
        )
        session.last_event_at = moment
        session.save(update_fields=["last_fired", "recent_firings", "last_event_at", "updated_at"])
    elif _touch_due(session, moment):
        # Not locked: only this column, so a concurrent firing's flood
        # state is never overwritten.
        LifecycleSession.objects.filter(pk=session.pk).update(
            last_event_at=moment, updated_at=moment
        )
    return session, fired, [*late, *over]


def event_record(
    *,
    host: Host,
    actor: Actor,
    user: User,
    session: LifecycleSession,
    data: LifecycleInput,
    evaluation: Evaluation,
    fired: list[Fired],
    suppressed: list[Suppression],
    refresh: RefreshAnswer | None,
    moment: datetime,
    started: float,
) -> tuple[LifecycleEvent, list[HookFiring]]:
    """Step 8, inside the transaction: the event's row, carrying the
    firings, ledger entries and timeline entry a worker writes after the
    answer (``hooks.services.records``)."""
    firings = firings_planned(fired, evaluation.latencies)
    record = LifecycleEvent.objects.create(
        created_at=moment,
        host=host,
        session=session,
        user=user,
        event=data.event,
        dialect=data.dialect or "",
        native_event=data.native_event,
        tool_name=(evaluation.facts.tool_name or "")[:200],
        tool_server=(data.tool_server or "")[:200]
        if evaluation.facts.event in engine.TOOL_EVENTS
        else "",
        thread_id=session.thread_id,
        injected=len(fired),
        suppressed=[suppression_dict(s) for s in suppressed],
        refresh=refresh.as_dict() if refresh else None,
        notices=evaluation.notices,
        duration_ms=round((time.perf_counter() - started) * 1000),
        pending=records_pending(firings=firings, actor=actor),
    )
    records_write_soon()
    return record, firings


def _signalled_thread(data: LifecycleInput) -> str | None:
    if data.event == "post_tool_use" and isinstance(data.tool_output, Mapping):
        return refresh_thread_id(data.tool_output)
    return None


# --- the service -------------------------------------------------------------------


def lifecycle_event_handle(*, host: Host, actor: Actor, data: LifecycleInput) -> LifecycleOutcome:
    """Evaluate one lifecycle event (see the module docstring), counted in
    the metrics by event and outcome (``refused``: answered with an error)."""
    event = metrics.bounded(data.event, HOOK_EVENTS, other="unknown")
    try:
        outcome = _handle(host=host, actor=actor, data=data)
    except DomainError:
        metrics.lifecycle_events.labels(event=event, outcome="refused").inc()
        raise
    fired = "fired" if outcome.fired else "none"
    metrics.lifecycle_events.labels(event=event, outcome=fired).inc()
    return outcome


def _handle(*, host: Host, actor: Actor, data: LifecycleInput) -> LifecycleOutcome:
    """The steps, in order."""
    started = time.perf_counter()
    event_validate(host=host, actor=actor, data=data)
    session, user = session_claim(host=host, data=data)
    servers = session_servers(host=host, session=session)
    limits = limits_from_settings()
    evaluation = event_evaluate(
        host=host, user=user, session=session, data=data, servers=servers, limits=limits
    )
    context_tools_run(user=user, event=data.event, evaluation=evaluation, servers=servers)
    signalled = _signalled_thread(data)
    with transaction.atomic():
        moment = timezone.now()
        session, fired, held_late = flood_state_apply(session, evaluation, limits, moment=moment)
        suppressed = [*evaluation.suppressed, *evaluation.held, *held_late]
        refresh = (
            _refresh_signal(session=session, user=user, signalled=signalled, actor=actor)
            if signalled
            else None
        )
        record, firings = event_record(
            host=host,
            actor=actor,
            user=user,
            session=session,
            data=data,
            evaluation=evaluation,
            fired=fired,
            suppressed=suppressed,
            refresh=refresh,
            moment=moment,
            started=started,
        )
    return LifecycleOutcome(
        record=record,
        fired=list(zip(fired, firings, strict=True)),
        suppressed=suppressed,
        refresh=refresh,
        notices=evaluation.notices,
        late=evaluation.late,
    )
