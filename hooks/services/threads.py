"""Threads and the thread-scoped capability refresh.

A thread is the consent app's ``Conversation``: it belongs to the host that
first used its id, and its servers are the union of those the host listed
for it. A refresh signal (a ``post_tool_use`` whose result carries
``_meta.refreshThreadCapabilities``, or ``POST /threads/{id}/refresh``):

1. is counted against the thread's signal rate limit (refused beyond it);
2. lands on the thread's one ``scheduled`` refresh row, or creates it due
   after the coalescing window (and never sooner than the minimum interval
   after the previous refresh started), so a burst becomes one refresh;
3. is run by a Celery task once due (``hooks.services.refresh``):
   ``tools/list`` and ``resources/list`` on every server of the thread,
   concurrently, with the thread id in each request's ``_meta``; the result
   is compared with the last snapshot per server and reported to the host
   (``thread.capabilities_changed``, even when nothing changed) and to the
   activity feed.

When a server first joins a thread a ``baseline`` snapshot is taken, so the
first real refresh reports what changed rather than everything.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from consent.models import Conversation
from hooks.models import (
    RefreshKind,
    RefreshStatus,
    RefreshTrigger,
    ThreadRefresh,
    ThreadState,
)
from switchboard.actors import Actor
from switchboard.errors import NotFound
from switchboard.models import User
from switchboard.queue import enqueue
from switchboard.services.audit import audit_record

log = logging.getLogger(__name__)


# --- threads ---------------------------------------------------------------------


def _conversation_model():

    return Conversation


@transaction.atomic
def thread_claim(*, host_id: str, thread_id: str, server_ids: Iterable[str] = ()) -> list[str]:
    """Make sure the thread exists for this host and add servers to it.

    Returns the server ids that were new to the thread. A thread first used
    by another host is a 404, as foreign ids are everywhere.
    """
    Conversation = _conversation_model()
    conversation = (
        Conversation.objects.select_for_update(no_key=True)
        .filter(conversation_id=thread_id)
        .first()
    )
    if conversation is None:
        try:
            with transaction.atomic():
                conversation = Conversation.objects.create(
                    conversation_id=thread_id, host_id=host_id, server_ids=[]
                )
        except IntegrityError:  # another request created it just now
            conversation = Conversation.objects.select_for_update(no_key=True).get(
                conversation_id=thread_id
            )
    if conversation.host_id != host_id:
        raise NotFound(
            f"no thread {thread_id!r} for this host", field="thread_id", code="thread_not_found"
        )
    known = list(conversation.server_ids or [])
    added = [sid for sid in dict.fromkeys(server_ids) if sid not in known]
    if added:
        conversation.server_ids = known + added
        conversation.save(update_fields=["server_ids", "updated_at"])
    return added


def thread_servers(*, host_id: str, thread_id: str) -> list[str] | None:
    """The thread's server ids, or None if this host has no such thread."""
    row = (
        _conversation_model()
        .objects.filter(conversation_id=thread_id, host_id=host_id)
        .values_list("server_ids", flat=True)
        .first()
    )
    return None if row is None else list(row or [])


# --- asking for a refresh -----------------------------------------------------------


@dataclass(frozen=True)
class RefreshAnswer:
    thread_id: str
    status: str  # scheduled | coalesced | rate_limited | refused
    reason: str | None = None
    retry_after: int | None = None
    refresh_id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"thread_id": self.thread_id, "status": self.status}
        if self.reason:
            out["reason"] = self.reason
        if self.retry_after is not None:
            out["retry_after"] = self.retry_after
        return out


def _state_locked(*, host_id: str, thread_id: str) -> ThreadState:
    state = ThreadState.objects.select_for_update(no_key=True).filter(thread_id=thread_id).first()
    if state is None:
        try:
            with transaction.atomic():
                state = ThreadState.objects.create(host_id=host_id, thread_id=thread_id)
        except IntegrityError:
            state = ThreadState.objects.select_for_update(no_key=True).get(thread_id=thread_id)
    return state


def _enqueue(refresh: ThreadRefresh) -> None:
    """After commit: a task due when the row is. The beat sweep picks up any
    row whose task got lost, so a failure to enqueue loses nothing."""
    countdown = max((refresh.due_at - timezone.now()).total_seconds(), 0)
    enqueue("hooks.refresh_thread", refresh.id, countdown=countdown)


@transaction.atomic
def thread_refresh_request(
    *,
    host_id: str,
    thread_id: str,
    user: User | None,
    trigger: str,
    actor: Actor,
) -> RefreshAnswer:
    """Count a signal and schedule or coalesce it (see the module docstring).
    The thread must exist for this host (``thread_claim`` first)."""
    now = timezone.now()
    state = _state_locked(host_id=host_id, thread_id=thread_id)
    window = timedelta(seconds=settings.THREAD_REFRESH_SIGNAL_WINDOW)
    if state.signal_window_started_at is None or now - state.signal_window_started_at >= window:
        state.signal_window_started_at = now
        state.signals_in_window = 0
    if state.signals_in_window >= settings.THREAD_REFRESH_MAX_SIGNALS:
        retry = max(int((state.signal_window_started_at + window - now).total_seconds()) + 1, 1)
        if state.signals_in_window == settings.THREAD_REFRESH_MAX_SIGNALS:
            # Recorded once per window, not once per refused signal.
            audit_record(
                host_id=host_id,
                kind="thread.refresh_rate_limited",
                actor=actor,
                user=user,
                subject_type="thread",
                subject_id=thread_id[:60],
                summary=f"Refresh signals for thread {thread_id} are rate limited",
                detail={
                    "thread_id": thread_id,
                    "limit": settings.THREAD_REFRESH_MAX_SIGNALS,
                    "window_seconds": settings.THREAD_REFRESH_SIGNAL_WINDOW,
                },
            )
        state.signals_in_window += 1
        state.save(update_fields=["signal_window_started_at", "signals_in_window", "updated_at"])
        return RefreshAnswer(thread_id, "rate_limited", "thread_rate_limit", retry_after=retry)
    state.signals_in_window += 1
    state.save(update_fields=["signal_window_started_at", "signals_in_window", "updated_at"])
    pending = (
        ThreadRefresh.objects.select_for_update(no_key=True)
        .filter(thread_id=thread_id, kind=RefreshKind.REFRESH, status=RefreshStatus.SCHEDULED)
        .first()
    )
    if pending is not None:
        pending.signals += 1
        if user is not None:
            pending.user = user
        pending.save(update_fields=["signals", "user", "updated_at"])
        return RefreshAnswer(thread_id, "coalesced", refresh_id=pending.id)
    due = now + timedelta(seconds=settings.THREAD_REFRESH_COALESCE)
    if state.last_refresh_started_at is not None:
        due = max(
            due,
            state.last_refresh_started_at + timedelta(seconds=settings.THREAD_REFRESH_MIN_INTERVAL),
        )
    refresh = ThreadRefresh.objects.create(
        host_id=host_id,
        thread_id=thread_id,
        user=user,
        kind=RefreshKind.REFRESH,
        trigger=trigger,
        due_at=due,
    )
    audit_record(
        host_id=host_id,
        kind="thread.refresh_scheduled",
        actor=actor,
        user=user,
        subject_type="thread_refresh",
        subject_id=refresh.id,
        summary=f"Capability refresh of thread {thread_id} scheduled",
        detail={"thread_id": thread_id, "trigger": trigger, "due_at": due.isoformat()},
    )
    _enqueue(refresh)
    return RefreshAnswer(thread_id, "scheduled", refresh_id=refresh.id)


def thread_refresh_refuse(
    *, host_id: str, thread_id: str, user: User | None, reason: str, actor: Actor, detail: dict
) -> RefreshAnswer:
    """Record a refresh signal we will not act on (a foreign thread)."""
    audit_record(
        host_id=host_id,
        kind="thread.refresh_refused",
        actor=actor,
        user=user,
        subject_type="thread",
        subject_id=thread_id[:60],
        summary=f"Refused a capability refresh for thread {thread_id[:80]} ({reason})",
        detail={"thread_id": thread_id, "reason": reason, **detail},
    )
    return RefreshAnswer(thread_id, "refused", reason)


def thread_refresh_from_host(
    *, host_id: str, thread_id: str, user: User, server_ids: list[str], actor: Actor
) -> RefreshAnswer:
    """``POST /threads/{id}/refresh``: the host signals the refresh itself.

    Listed servers join the thread (which is created on first use); without
    any, the thread must already be this host's. A thread of another host is
    refused (404, like any foreign id) and the attempt recorded.
    """
    try:
        if server_ids:
            thread_claim(host_id=host_id, thread_id=thread_id, server_ids=server_ids)
        elif thread_servers(host_id=host_id, thread_id=thread_id) is None:
            raise NotFound(
                f"no thread {thread_id!r} for this host", field="thread_id", code="thread_not_found"
            )
    except NotFound:
        thread_refresh_refuse(
            host_id=host_id,
            thread_id=thread_id,
            user=user,
            reason="unknown_or_foreign_thread",
            actor=actor,
            detail={},
        )
        raise
    return thread_refresh_request(
        host_id=host_id, thread_id=thread_id, user=user, trigger=RefreshTrigger.API, actor=actor
    )


@transaction.atomic
def thread_baseline_schedule(*, host_id: str, thread_id: str, user: User | None) -> None:
    """A server joined the thread: take its first snapshot soon (one
    scheduled baseline per thread covers every server still without one)."""
    exists = ThreadRefresh.objects.filter(
        thread_id=thread_id, kind=RefreshKind.BASELINE, status=RefreshStatus.SCHEDULED
    ).exists()
    if exists:
        return
    try:
        with transaction.atomic():
            refresh = ThreadRefresh.objects.create(
                host_id=host_id,
                thread_id=thread_id,
                user=user,
                kind=RefreshKind.BASELINE,
                trigger=RefreshTrigger.SERVER_JOINED,
                due_at=timezone.now(),
            )
    except IntegrityError:
        return  # a concurrent request scheduled it
    _enqueue(refresh)
