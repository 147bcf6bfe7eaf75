"""Task event sources (docs/conformance.md case 49; behind TASK_EVENT_SOURCES, off by default).

A host that calls a tool as a task may get back a ``CreateTaskResult`` whose
``eventSource`` (``{name, input, initialCursor?}``) names events about that
task. The console never calls tools, so the host hands the task over
(``POST /api/v1/tasks``) and the console:

1. subscribes to the event source as it would for the host, with
   ``arguments = input`` and the stored cursor set to ``initialCursor``, so
   the first subscribe, poll or stream starts there and nothing the task
   said before the subscription existed is missed. A refused subscription
   is kept on the watch (``subscription_error``) and changes nothing else:
   a failed subscription never fails the task;
2. asks ``tasks/get`` (on the user's behalf: once the session is open and
   right before it is sent, ``consent.enforce`` is asked whether the user's
   ``events`` grant on the server is still live and the server not
   blocked; refused or unreadable, nothing is sent and the watch tries
   again later, saying why in ``last_error``) every ``pollInterval`` (clamped like poll mode) until
   the task is terminal, whatever became of the subscription: the task's
   status comes from there, never from its events. Beat dispatches due
   watches; a short wait also gets a countdown, so a 1 s ``pollInterval``
   does not wait for beat's tick;
3. then ends the subscription (``subscription.updated``, reason
   ``task_completed``/``task_failed``/``task_cancelled``), so what the
   source sends for a finished task is not forwarded. A server that no
   longer knows the task (-32602) ends the watch the same way
   (``task_not_found``).

Each due time is claimed by an exact-match UPDATE that moves it a claim
lease on: beat and a countdown sent for the same due time cannot both run
it, a stale countdown does nothing, and a watch whose worker died is due
again when the lease runs out.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from consent.enforce import OutboundRefused, Verdict, outbound_check_async
from consent.models import Scope
from subscriptions.models import TERMINAL_TASK_STATUSES, TaskWatch
from subscriptions.services.common import claim_lease, retry_backoff, subscription_broadcast
from subscriptions.services.creation import server_allowed, subscription_create
from subscriptions.services.lifecycle import subscription_revoke
from subscriptions.services.poll import next_poll_wait
from switchboard.actors import Actor
from switchboard.errors import DomainError, Invalid, NotFound
from switchboard.mcp import McpCallError, McpSession, with_session
from switchboard.models import McpServer, User
from switchboard.once import found_or_created
from switchboard.queue import enqueue, enqueue_each
from switchboard.selectors.mcp_targets import mcp_target_for
from switchboard.services.audit import audit_record

log = logging.getLogger(__name__)

SYSTEM = Actor.system("subscriptions")
CHECK_TASK = "subscriptions.check_task"
# JSON-RPC InvalidParams: what tasks/get answers for a task the server does not know.
TASK_NOT_FOUND_CODE = -32602


def task_sources_enabled() -> bool:
    return bool(settings.TASK_EVENT_SOURCES)


def _refuse_when_off() -> None:
    if not task_sources_enabled():
        raise NotFound(
            "task event sources are turned off on this console (setting TASK_EVENT_SOURCES)",
            code="task_event_sources_off",
        )


# --- handing a task over -----------------------------------------------------------


def task_watch_start(
    *,
    user: User,
    server: McpServer,
    task_id: str,
    event_source: dict[str, Any],
    actor: Actor,
    poll_interval_ms: int | None = None,
) -> tuple[TaskWatch, bool]:
    """Follow a task's event source; the same task again answers the watch
    already there (``created`` False). Refused as a whole only when the
    feature is off or the server cannot or may not be used at all; a subscription the
    event source cannot get is recorded on the watch instead."""
    _refuse_when_off()
    if server.host_id != user.host_id:
        raise Invalid("the server belongs to another host", field="server")
    if not server.url:
        # tasks/get would have nowhere to go: nothing could ever end the watch.
        raise Invalid(
            "the console can only follow tasks on servers it reaches itself (this one has no url)",
            field="server",
            code="server_not_reachable",
        )
    server_allowed(server)
    return found_or_created(
        lambda: TaskWatch.objects.filter(server=server, user=user, task_id=task_id).first(),
        lambda: _start(
            user=user,
            server=server,
            task_id=task_id,
            event_source=event_source,
            actor=actor,
            poll_interval_ms=poll_interval_ms,
        ),
    )


def _start(
    *,
    user: User,
    server: McpServer,
    task_id: str,
    event_source: dict[str, Any],
    actor: Actor,
    poll_interval_ms: int | None,
) -> TaskWatch:
    watch = TaskWatch(
        host_id=user.tenant_id,
        user=user,
        server=server,
        task_id=task_id,
        event_source=event_source,
        poll_interval_ms=poll_interval_ms,
    )
    try:
        # A savepoint: a refusal after a write leaves the watch's transaction whole.
        with transaction.atomic():
            subscription, created = subscription_create(
                user=user,
                server=server,
                event=event_source["name"],
                arguments=event_source.get("input") or {},
                cursor=event_source.get("initialCursor"),
                actor=actor,
            )
        watch.subscription = subscription
        watch.owns_subscription = created
    except DomainError as exc:
        watch.subscription_error = exc.as_body()["error"]
    due = timezone.now() + timedelta(seconds=_wait_seconds(poll_interval_ms))
    watch.next_check_at = due
    watch.save(force_insert=True)
    _record(
        watch,
        kind="started",
        actor=actor,
        summary=f"Task {task_id} on {server.name} handed over; "
        + (
            f"subscribed to its event source {event_source['name']}"
            if watch.subscription_error is None
            else f"its event source {event_source['name']} could not be subscribed to"
        ),
        detail={"event_source": event_source, "subscription_error": watch.subscription_error},
    )
    _countdown_if_soon(watch.pk, due)
    return watch


# --- watching it -------------------------------------------------------------------


def _wait_seconds(poll_interval_ms: int | None) -> float:
    """Until the next tasks/get: the server's pollInterval, clamped as poll mode's."""
    if poll_interval_ms is None:
        return settings.TASK_POLL_DEFAULT
    return next_poll_wait(poll_interval_ms)


def _countdown_if_soon(watch_id: str, due: datetime) -> None:
    wait = (due - timezone.now()).total_seconds()
    if wait <= settings.SUBSCRIPTION_COUNTDOWN_MAX:
        enqueue(CHECK_TASK, watch_id, due.isoformat(), countdown=max(wait, 0.0))


def task_watches_check_due(*, batch: int = 200) -> int:
    """Beat: one check per due watch, each due time moved a lease on (the
    task claims exactly that value)."""
    if not task_sources_enabled():
        return 0
    now = timezone.now()
    leased = now + claim_lease()
    with transaction.atomic():
        ids = list(
            TaskWatch.objects.select_for_update(skip_locked=True)
            .filter(next_check_at__lte=now)
            .order_by("next_check_at")
            .values_list("pk", flat=True)[:batch]
        )
        if ids:
            TaskWatch.objects.filter(pk__in=ids).update(next_check_at=leased)
            enqueue_each(CHECK_TASK, [(pk, leased.isoformat()) for pk in ids])
    return len(ids)


def task_watch_check(*, watch_id: str, due: str) -> str:
    """One ``tasks/get`` for a watch whose due time is still ``due``.
    Returns the task's status, ``ended`` (not found, server gone), ``retry``,
    ``not_due`` (another run took it) or ``off``."""
    if not task_sources_enabled():
        return "off"
    taken = TaskWatch.objects.filter(
        pk=watch_id, ended_at__isnull=True, next_check_at=datetime.fromisoformat(due)
    ).update(next_check_at=timezone.now() + claim_lease())
    if not taken:
        return "not_due"
    watch = TaskWatch.objects.select_related("server", "user").get(pk=watch_id)
    server = watch.server
    if server.deleted_at is not None or server.blocked_at is not None:
        _end(watch, status=None, reason="server_gone", message="the server was removed or blocked")
        return "ended"
    try:
        task = _task_get(watch)
    except OutboundRefused as refused:
        _retry_later(watch, reason=refused.verdict.reason, message=refused.verdict.message)
        return "retry"
    except McpCallError as exc:
        if exc.code == TASK_NOT_FOUND_CODE:
            _end(watch, status=None, reason="task_not_found", message=exc.message)
            return "ended"
        _retry_later(watch, reason=exc.category, message=exc.message)
        return "retry"
    if task.status in TERMINAL_TASK_STATUSES:
        _end(watch, status=task.status, reason=f"task_{task.status}", message=task.status_message)
        return task.status
    _seen(watch, status=task.status, message=task.status_message, interval=task.poll_interval)
    return task.status


def _task_get(watch: TaskWatch) -> Any:
    """``tasks/get`` with the user's principal, on the user's consent: asked
    once the session is open, right before the request (``consent.enforce``).
    Raises ``OutboundRefused`` when nothing was sent."""

    async def call(session: McpSession) -> Any:
        verdict: Verdict = await outbound_check_async(
            user_id=watch.user_id,
            server_id=watch.server_id,
            scope=Scope.EVENTS,
            own_connection=True,  # a loop of its own, outside any request
        )
        if not verdict.allowed:
            raise OutboundRefused(verdict)
        return await session.task_get(task_id=watch.task_id)

    return with_session(mcp_target_for(user_id=watch.user_id, server=watch.server), call)


def _seen(watch: TaskWatch, *, status: str, message: str | None, interval: int | None) -> None:
    now = timezone.now()
    interval = interval if interval is not None else watch.poll_interval_ms
    due = now + timedelta(seconds=_wait_seconds(interval))
    changed = status != watch.status
    TaskWatch.objects.filter(pk=watch.pk, ended_at__isnull=True).update(
        status=status,
        status_message=(message or "")[:500],
        poll_interval_ms=interval,
        last_checked_at=now,
        check_failures=0,
        last_error="",
        next_check_at=due,
        updated_at=now,
    )
    if changed:
        watch.status = status
        _record(
            watch,
            kind="status",
            actor=SYSTEM,
            summary=f"Task {watch.task_id} is {status}",
            detail={"status": status},
        )
        _show(watch)
    _countdown_if_soon(watch.pk, due)


def _retry_later(watch: TaskWatch, *, reason: str, message: str) -> None:
    """A failed tasks/get (other than not found), or one the consent check
    did not let leave, says nothing of the task: ask again, backing off, for
    as long as it takes (case 49: keep polling)."""
    now = timezone.now()
    failures = watch.check_failures + 1
    due = now + timedelta(seconds=retry_backoff(failures))
    TaskWatch.objects.filter(pk=watch.pk, ended_at__isnull=True).update(
        check_failures=failures,
        last_error=f"{reason}: {message}"[:300],
        last_checked_at=now,
        next_check_at=due,
        updated_at=now,
    )
    log.warning("tasks/get for %s failed (%s); again in %s", watch.pk, reason, due - now)
    _countdown_if_soon(watch.pk, due)


def _end(watch: TaskWatch, *, status: str | None, reason: str, message: str | None) -> None:
    """The task is over: stop asking, and end its subscription unless another
    live task shares it (then that one owns it from now on). One transaction,
    so a crash leaves the watch due again (the claim lease runs out) and the
    next run ends both."""
    now = timezone.now()
    with transaction.atomic():
        locked = TaskWatch.objects.select_for_update().get(pk=watch.pk)
        if locked.ended_at is not None:
            return
        if status is not None:
            locked.status = status
            locked.status_message = (message or "")[:500]
        else:
            locked.last_error = f"{reason}: {message or ''}"[:300]
        locked.ended_at = now
        locked.last_checked_at = now
        locked.next_check_at = None
        outcome = "no subscription of its own to end"
        if locked.owns_subscription and locked.subscription_id:
            heir = (
                TaskWatch.objects.select_for_update()
                .filter(subscription_id=locked.subscription_id, ended_at__isnull=True)
                .exclude(pk=locked.pk)
                .order_by("created_at")
                .first()
            )
            if heir is not None:
                TaskWatch.objects.filter(pk=heir.pk).update(owns_subscription=True)
                outcome = f"its subscription goes on for task {heir.task_id}"
            else:
                outcome = "its subscription ended"
                # The unsubscribe (webhook) is owed and sent after commit.
                subscription_revoke(
                    subscription=locked.subscription,  # type: ignore[arg-type]
                    actor=SYSTEM,
                    reason=reason,
                    unsubscribe_now=False,
                )
            locked.owns_subscription = False
        locked.save()
        _record(
            locked,
            kind="ended",
            actor=SYSTEM,
            summary=f"Task {locked.task_id} ended ({status or reason}); {outcome}",
            detail={"status": locked.status, "reason": reason},
        )
        _show(locked)


def _show(watch: TaskWatch) -> None:
    """The subscription's page lists its tasks: it re-reads itself."""
    if watch.subscription is not None:
        subscription_broadcast(watch.subscription)


def _record(
    watch: TaskWatch, *, kind: str, actor: Actor, summary: str, detail: dict[str, Any]
) -> None:
    audit_record(
        host_id=watch.host_id,
        kind=f"task.{kind}",
        actor=actor,
        user=watch.user,
        server_id=watch.server_id,
        subject_type="task",
        subject_id=watch.pk,
        summary=summary,
        detail={"task_id": watch.task_id, "subscription_id": watch.subscription_id, **detail},
    )
