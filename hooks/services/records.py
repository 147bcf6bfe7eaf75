"""The records one lifecycle event leaves: firings (the injection records),
ledger entries, and the live timeline entry.

The host's answer depends on none of them, so they are written after it
(ARCHITECTURE.md, *The hot path*). The request stores what is left to write on the
event row itself (``LifecycleEvent.pending``), in the transaction that
updates the session's flood state: the answer and its records commit or
vanish together. A worker then writes them (``lifecycle_records_write``),
woken at once by a coalesced task and, should that task be lost, by beat.
Writers take the oldest pending events first and lock them, so each user's
records land in the order of their events, and a second writer waits
instead of writing them twice; the firings' ids are chosen by the request
(they are in its answer), so a repeat could not write them twice anyway.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from hooks import engine, live
from hooks.engine import Fired, Suppression
from hooks.models import FiringSource, HookFiring, LifecycleEvent, LifecycleSession
from hooks.services.lifecycle_data import Evaluation, LifecycleInput
from hooks.services.threads import RefreshAnswer
from switchboard.actors import Actor
from switchboard.models import HookDeclaration, Host, McpServer, User
from switchboard.queue import enqueue_coalesced
from switchboard.services.audit import audit_record

WRITE_TASK = "hooks.write_records"

# Suppressions the ledger does not repeat on every event: the user's own
# choices and missing consent are visible on the pages already; flood
# control and failures are worth an entry.
_QUIET_REASONS = frozenset({"no_consent", "not_approved", "muted", "disabled_by_host"})

# Pending events one writer transaction takes: bounded, so a burst's
# backlog is written in several short transactions, not one long lock.
_BATCH = 200


def suppression_dict(s: Suppression) -> dict[str, Any]:
    return {
        "server": s.server_id,
        "hook_id": s.hook_id,
        "reason": s.reason,
        "detail": dict(s.detail),
    }


def firings_planned(fired: Sequence[Fired], latencies: Mapping[str, int]) -> list[HookFiring]:
    """The firing rows of an event, with their ids, not saved: the answer
    names them now, the writer saves them later."""
    return [
        HookFiring(
            server_id=f.candidate.hook.server_id,
            hook_id=f.candidate.hook.hook_id,
            priority=f.candidate.hook.priority,
            effective_priority=f.candidate.effective_priority,
            downgraded=list(f.candidate.downgraded),
            source=FiringSource.CONTEXT_TOOL
            if f.source == "context_tool"
            else FiringSource.CONTEXT,
            text=f.text,
            chars=len(f.text),
            latency_ms=latencies.get(f.candidate.hook.hook_id, 0),
        )
        for f in fired
    ]


_FIRING_FIELDS = (
    "id",
    "server_id",
    "hook_id",
    "priority",
    "effective_priority",
    "downgraded",
    "source",
    "text",
    "chars",
    "latency_ms",
)


def records_pending(*, firings: Sequence[HookFiring], actor: Actor) -> dict[str, Any]:
    """What ``LifecycleEvent.pending`` holds until the writer has run."""
    return {
        "actor": asdict(actor),
        "firings": [{name: getattr(row, name) for name in _FIRING_FIELDS} for row in firings],
    }


def records_write_soon() -> None:
    """Wake a records writer once this transaction commits (one task for a
    burst of events, sent off the request's thread)."""
    transaction.on_commit(lambda: enqueue_coalesced(WRITE_TASK))


# --- the event's row ----------------------------------------------------------------


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
    answer (``lifecycle_records_write``, below)."""
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


# --- the writer ----------------------------------------------------------------------


def lifecycle_records_write(*, older_than: float = 0, user_id: str | None = None) -> int:
    """Write the records of every pending event (or those of one user, or
    those pending for longer than ``older_than`` seconds: the sweep), oldest
    first. Returns how many events were written."""
    written = 0
    while True:
        done = _write_batch(older_than=older_than, user_id=user_id)
        written += done
        if done < _BATCH:
            return written


def _write_batch(*, older_than: float, user_id: str | None) -> int:
    pending = LifecycleEvent.objects.filter(pending__isnull=False)
    if older_than:
        pending = pending.filter(created_at__lt=timezone.now() - timedelta(seconds=older_than))
    if user_id:
        pending = pending.filter(user_id=user_id)
    try:
        with transaction.atomic():
            # Waits for a writer that holds them; rows it wrote meanwhile no
            # longer match and drop out (PostgreSQL re-checks after the lock).
            events = list(
                pending.select_for_update(no_key=True, of=("self",))
                .select_related("user", "session")
                .order_by("created_at", "id")[:_BATCH]
            )
            if not events:
                return 0
            _write(events)
    except IntegrityError:
        # Another writer saved these firings first (their ids are fixed):
        # SQLite has no row locks to make it wait. Its records stand.
        return 0
    return len(events)


def _write(events: list[LifecycleEvent]) -> None:
    firings: dict[str, list[HookFiring]] = {}
    for event in events:
        firings[event.id] = [
            HookFiring(
                **item,
                created_at=event.created_at,
                host_id=event.host_id,
                user_id=event.user_id,
                session_id=event.session_id,
                lifecycle_event_id=event.id,
                event=event.event,
            )
            for item in (event.pending or {}).get("firings", [])
        ]
    rows = [row for group in firings.values() for row in group]
    servers = McpServer.objects.in_bulk({row.server_id for row in rows})
    if rows:
        HookFiring.objects.bulk_create(rows)
        for row in rows:
            row.server = servers[row.server_id]  # the timeline shows its name
        _stamp_declarations(events, firings)
    for event in events:
        actor = Actor(**(event.pending or {}).get("actor", asdict(Actor.system())))
        for row in firings[event.id]:
            _firing_audit(event, row, actor)
        _suppressions_audit(event, actor)
        live.timeline_entry_added(event, firings[event.id])
    LifecycleEvent.objects.filter(pk__in=[e.id for e in events]).update(pending=None)


def _stamp_declarations(events: list[LifecycleEvent], firings: dict[str, list[HookFiring]]) -> None:
    """Each declaration's last firing: the latest event that fired it. Hook
    ids carry their server id, so they are unique across servers."""
    latest = {}
    for event in events:
        for row in firings[event.id]:
            latest[(row.server_id, row.hook_id)] = event.created_at
    by_moment: dict[Any, list[tuple[str, str]]] = {}
    for key, moment in latest.items():
        by_moment.setdefault(moment, []).append(key)
    for moment, keys in by_moment.items():
        HookDeclaration.objects.filter(
            server_id__in={s for s, _ in keys}, hook_id__in=[h for _, h in keys]
        ).update(last_fired_at=moment)


def _firing_audit(event: LifecycleEvent, row: HookFiring, actor: Actor) -> None:
    """Who injected how much, when and why, without the text (which stays
    erasable on the firing)."""
    audit_record(
        host_id=event.host_id,
        kind="hook.injected",
        actor=actor,
        user=event.user,
        server_id=row.server_id,
        subject_type="hook_firing",
        subject_id=row.id,
        summary=(
            f"{row.server.name} injected {row.chars} characters at {event.event} "
            f"({row.effective_priority})"
        ),
        detail={
            "hook_id": row.hook_id,
            "event": event.event,
            "session_id": event.session.session_id,
            "thread_id": event.thread_id,
            "lifecycle_event": event.id,
            "priority": row.priority,
            "effective_priority": row.effective_priority,
            "downgraded": row.downgraded,
            "source": row.source,
            "chars": row.chars,
            "latency_ms": row.latency_ms,
        },
        at=event.created_at,
    )


def _suppressions_audit(event: LifecycleEvent, actor: Actor) -> None:
    loud = [s for s in event.suppressed or [] if s.get("reason") not in _QUIET_REASONS]
    if not loud:
        return
    reasons = sorted({s.get("reason", "?") for s in loud})
    audit_record(
        host_id=event.host_id,
        kind="hook.suppressed",
        actor=actor,
        user=event.user,
        subject_type="lifecycle_event",
        subject_id=event.id,
        summary=f"{len(loud)} hook(s) held back at {event.event}: {', '.join(reasons)}",
        detail={"session_id": event.session.session_id, "event": event.event, "suppressed": loud},
        at=event.created_at,
    )
