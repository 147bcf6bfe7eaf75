"""The records one lifecycle event leaves: firings (the injection records),
ledger entries, and the live timeline entry."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hooks.engine import Fired, Suppression
from hooks.models import FiringSource, HookFiring, LifecycleEvent, LifecycleSession
from switchboard.actors import Actor
from switchboard.models import HookDeclaration, McpServer, User
from switchboard.services.audit import audit_record

# Suppressions the ledger does not repeat on every event: the user's own
# choices and missing consent are visible on the pages already; flood
# control and failures are worth an entry.
_QUIET_REASONS = frozenset({"no_consent", "not_approved", "muted", "disabled_by_host"})


def suppression_dict(s: Suppression) -> dict[str, Any]:
    return {
        "server": s.server_id,
        "hook_id": s.hook_id,
        "reason": s.reason,
        "detail": dict(s.detail),
    }


def firings_record(
    *,
    session: LifecycleSession,
    record: LifecycleEvent,
    fired: Sequence[Fired],
    latencies: Mapping[str, int],
    servers: Mapping[str, McpServer],
    actor: Actor,
    user: User,
) -> list[tuple[Fired, HookFiring]]:
    """Store each firing (with its text), stamp the declarations' last
    firing, and write one ledger entry per firing: who injected how much,
    when and why, without the text (which stays erasable on the firing)."""
    rows = [
        HookFiring(
            created_at=record.created_at,
            host_id=session.host_id,
            user=user,
            session=session,
            lifecycle_event=record,
            server_id=f.candidate.hook.server_id,
            hook_id=f.candidate.hook.hook_id,
            event=record.event,
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
    if not rows:
        return []
    HookFiring.objects.bulk_create(rows)
    for row in rows:
        row.server = servers[row.server_id]  # the timeline shows its name
    # One update for all: hook ids carry their server id, so they are unique.
    HookDeclaration.objects.filter(
        server_id__in={row.server_id for row in rows}, hook_id__in=[row.hook_id for row in rows]
    ).update(last_fired_at=record.created_at)
    for f, row in zip(fired, rows, strict=True):
        hook = f.candidate.hook
        server = servers[hook.server_id]
        audit_record(
            host_id=session.host_id,
            kind="hook.injected",
            actor=actor,
            user=user,
            server_id=hook.server_id,
            subject_type="hook_firing",
            subject_id=row.id,
            summary=(
                f"{server.name} injected {row.chars} characters at {record.event} "
                f"({row.effective_priority})"
            ),
            detail={
                "hook_id": hook.hook_id,
                "event": record.event,
                "session_id": session.session_id,
                "thread_id": session.thread_id,
                "lifecycle_event": record.id,
                "priority": row.priority,
                "effective_priority": row.effective_priority,
                "downgraded": row.downgraded,
                "source": row.source,
                "chars": row.chars,
                "latency_ms": row.latency_ms,
            },
        )
    return list(zip(fired, rows, strict=True))


def suppressions_record(
    *,
    session: LifecycleSession,
    record: LifecycleEvent,
    suppressed: Sequence[Suppression],
    actor: Actor,
    user: User,
) -> None:
    loud = [s for s in suppressed if s.reason not in _QUIET_REASONS]
    if not loud:
        return
    reasons = sorted({s.reason for s in loud})
    audit_record(
        host_id=session.host_id,
        kind="hook.suppressed",
        actor=actor,
        user=user,
        subject_type="lifecycle_event",
        subject_id=record.id,
        summary=f"{len(loud)} hook(s) held back at {record.event}: {', '.join(reasons)}",
        detail={
            "session_id": session.session_id,
            "event": record.event,
            "suppressed": [suppression_dict(s) for s in loud],
        },
    )
