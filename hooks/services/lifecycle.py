"""``POST /sessions/{session_id}/lifecycle``: evaluate one lifecycle event.

``lifecycle_event_handle`` is these steps, each a function of its own:

1. ``event_validate``: an event name we know.
2. ``session_claim``: the user, the listed servers (this host's), the
   session (first use claims it for this host and user; it belongs to at
   most one thread) and the thread (``thread_claim``); in
   ``hooks.services.session_claim``.
3. ``session_servers``: the session's servers, from a process cache (there too).
4. ``event_evaluate``: the engine, outside any lock: compiled hooks from a
   process cache, matched against the event's facts; then
5. ``hooks_consent``: approvals, policy and preferences (one statement, none
   when no hook applies) select the candidates; flood control admits a few.
6. ``context_tools_run``: the admitted ``context_tool`` hooks, called
   concurrently on pooled sessions, bounded, each asking ``consent.enforce``
   right before it leaves; consent is read again after them
   (``hooks.services.context_tools_step``).
7. ``flood_state_apply``, in one transaction with the session row locked:
   admit again against the fresh firing history (a concurrent event may
   have fired the same hook), apply the character caps, save the history
   (``hooks.services.flood_state``).
8. ``event_record``, in that transaction: the event's row, carrying what is
   left to write; the firings, their ledger entries and the live timeline
   entry are written by a worker after commit (``hooks.services.records``).
   An event that fired nothing and has nothing else to write (the common
   case) writes its row alone, without BEGIN and COMMIT.

What the steps pass along is in ``hooks.services.lifecycle_data``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from consent.enforce import consent_readable
from hooks import engine
from hooks.engine import HOOK_EVENTS, Fired, Suppression
from hooks.models import HookFiring, LifecycleEvent, LifecycleSession, RefreshTrigger
from hooks.selectors import compiled_hooks, permissions_for
from hooks.services.context_tools_step import context_tools_run
from hooks.services.flood_state import (
    flood_state_apply,
    flood_state_writes,
    limits_from_settings,
)
from hooks.services.lifecycle_data import Evaluation, LifecycleInput
from hooks.services.records import event_record, suppression_dict
from hooks.services.session_claim import session_claim, session_servers
from hooks.services.threads import (
    RefreshAnswer,
    thread_refresh_refuse,
    thread_refresh_request,
)
from switchboard import metrics
from switchboard.actors import Actor
from switchboard.errors import DomainError, Invalid
from switchboard.mcp import refresh_thread_id
from switchboard.models import Host, McpServer, User
from switchboard.selectors import servers_for_host
from switchboard.services.audit import audit_record
from switchboard.trust import server_text_trust


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


# --- the steps ----------------------------------------------------------------------


def event_validate(*, host: Host, actor: Actor, data: LifecycleInput) -> None:
    """Step 1: an event name this service knows (else 422, and a ledger entry)."""
    if data.event not in HOOK_EVENTS:
        _reject_event(host=host, actor=actor, data=data)


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


def _signalled_thread(data: LifecycleInput) -> str | None:
    if data.event == "post_tool_use" and isinstance(data.tool_output, Mapping):
        return refresh_thread_id(data.tool_output)
    return None


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
    moment = timezone.now()
    # BEGIN and COMMIT are round trips of their own: an event that writes
    # only its own row (nothing fired, nothing else due) writes it alone,
    # atomic by itself; the writer is woken right away (``on_commit`` in
    # autocommit runs at once).
    together = bool(signalled) or flood_state_writes(session, evaluation, moment)
    with transaction.atomic() if together else nullcontext():
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
