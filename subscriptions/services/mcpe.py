"""Subscriptions on MCPE servers (host-api v1.1 "MCPE servers"; the MCPE
proposal).

An MCPE server keeps subscriptions per MCP session and sends their events
as notifications on it. So the session worker holds one session per user
and server that has MCPE subscriptions (kind ``mcpe``, item
``<user id>+<server id>``), with that user's credentials, and:

- **Reconciles** what the server holds with what we want, over that session:
  ``events_list`` first (a new session's list is empty: everything is
  subscribed again, with a new ``remote_id``), then ``events_subscribe`` /
  ``events_update`` (the filter changed) / ``events_pause`` /
  ``events_resume`` / ``events_unsubscribe`` (revoked). It does so when it
  opens, when a change to one of them wakes it (``mcpe_wake``), and every
  MCPE_CHECK_INTERVAL, which also proves the session is alive: a failed
  check reconnects (backoff capped by SESSION_WORKER_BACKOFF_MAX).
- **Takes in** ``events/event`` and ``events/batch`` (fanned into single
  events) through the same intake as push and poll: stored once per event
  id, filtered by the host's filter, forwarded or kept for a digest.
  ``events/subscription_expired`` → ``expired`` + ``subscription.updated``.

What we send the server only narrows its traffic; the console applies the
host's filter itself. Servers match differently (a bare ``*`` matches
nothing upstream; a priority filter never matches an event without one),
so a filter the server could read more narrowly than we do is not sent:
``*`` drops the event types, and a priority list that admits ``normal``
(our reading of "no priority") drops the priorities. The server is always
asked for realtime delivery; digests are the console's (``channel``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from dataclasses import dataclass
from typing import Any

import anyio
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from subscriptions.models import (
    Mode,
    Subscription,
    SubscriptionStatus,
    UnsubscribeState,
    mcpe_session_item,
)
from subscriptions.services.common import status_changed, subscription_broadcast
from subscriptions.services.intake import SERVER, events_take_in
from subscriptions.services.remote import target_for
from switchboard.actors import Actor
from switchboard.mcp import McpCallError, McpSession
from switchboard.mcp.mcpe import mcpe_tool
from switchboard.sessions.db import in_db_thread
from switchboard.sessions.registry import HeldKind, HoldOutcome
from switchboard.sessions.report import StreamReport
from switchboard.sessions.wakeup import held_stream_changed

log = logging.getLogger(__name__)

MCPE = Mode.MCPE.value
SYSTEM = Actor.system("subscriptions")
# Subscriptions the held session serves (pending_consent waits; ended ones are gone).
SERVED = (
    SubscriptionStatus.PENDING,
    SubscriptionStatus.ACTIVE,
    SubscriptionStatus.PAUSED,
    SubscriptionStatus.SUSPENDED,
)
TOOLS = {
    "subscribe": "events_subscribe",
    "update": "events_update",
    "pause": "events_pause",
    "resume": "events_resume",
    "unsubscribe": "events_unsubscribe",
    "list": "events_list",
}


def _pair(item: str) -> tuple[str, str]:
    user_id, _, server_id = item.partition("+")
    return user_id, server_id


def _served():
    return Subscription.objects.filter(mode=Mode.MCPE).filter(
        Q(status__in=SERVED) | Q(unsubscribe_state=UnsubscribeState.PENDING)
    )


def mcpe_wanted() -> list[str]:
    pairs = _served().values_list("user_id", "server_id").distinct()
    return sorted({mcpe_session_item(user_id, server_id) for user_id, server_id in pairs})


def mcpe_still_wanted(item: str) -> bool:
    user_id, server_id = _pair(item)
    return _served().filter(user_id=user_id, server_id=server_id).exists()


def mcpe_wake(subscription: Subscription) -> None:
    """Inside the transaction that changed it: the session holding it acts
    after commit (or opens, for a first subscription)."""
    held_stream_changed(MCPE, mcpe_session_item(subscription.user_id, subscription.server_id))


# --- what we ask of the server -------------------------------------------------------


def server_filter(host_filter: dict[str, Any]) -> dict[str, Any]:
    """The host's filter as the server may be trusted to read it (see the
    module docstring): never narrower than ours."""
    out: dict[str, Any] = {}
    types = host_filter.get("event_types") or []
    if types and "*" not in types:
        out["eventTypes"] = list(types)
    if host_filter.get("tags"):
        out["tags"] = list(host_filter["tags"])
    priority = host_filter.get("priority") or []
    if priority and "normal" not in priority:
        out["priority"] = list(priority)
    return out


def subscribe_arguments(sub: Subscription) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "filter": server_filter(sub.filter or {}),
        "delivery": {"channels": ["realtime"]},
    }
    if sub.expires_at is not None:
        arguments["expiresAt"] = sub.expires_at.isoformat()
    if sub.handler:
        arguments["handler"] = dict(sub.handler)  # as the policy allowed it
    return arguments


def _config_key(arguments: dict[str, Any]) -> str:
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class Step:
    """One tool call the reconcile makes for one subscription."""

    action: str  # a key of TOOLS
    subscription_id: str
    arguments: dict[str, Any]


def mcpe_plan(item: str, remote: dict[str, str]) -> list[Step]:
    """What to call so that the server (``remote``: its subscription ids on
    this session → status) holds what we want."""
    user_id, server_id = _pair(item)
    steps: list[Step] = []
    for sub in _served().filter(user_id=user_id, server_id=server_id).order_by("created_at"):
        on_server = bool(sub.remote_id) and sub.remote_id in remote
        if sub.unsubscribe_state == UnsubscribeState.PENDING:
            if on_server:
                steps.append(Step("unsubscribe", sub.pk, {"subscriptionId": sub.remote_id}))
            else:  # the server no longer has it: nothing to take down
                _unsubscribed(sub.pk)
            continue
        arguments = subscribe_arguments(sub)
        if not on_server:
            steps.append(Step("subscribe", sub.pk, arguments))
            continue
        if _config_key(arguments) != sub.remote_config:
            steps.append(Step("update", sub.pk, {"subscriptionId": sub.remote_id, **arguments}))
        paused_there = remote[sub.remote_id] == "paused"
        if sub.paused_at is not None and not paused_there:
            steps.append(Step("pause", sub.pk, {"subscriptionId": sub.remote_id}))
        elif sub.paused_at is None and paused_there:
            steps.append(Step("resume", sub.pk, {"subscriptionId": sub.remote_id}))
    return steps


def _unsubscribed(subscription_id: str) -> None:
    Subscription.objects.filter(pk=subscription_id).update(
        unsubscribe_state=UnsubscribeState.DONE, remote_state=""
    )


def mcpe_step_done(step: Step, result: dict[str, Any] | None, error: McpCallError | None) -> None:
    """Record what one tool call did (or that the server refused it)."""
    with transaction.atomic():
        sub = (
            Subscription.objects.select_for_update(no_key=True, of=("self",))
            .select_related("server", "user")
            .filter(pk=step.subscription_id)
            .first()
        )
        if sub is None:
            return
        if error is not None:
            _refused(sub, step, error)
            return
        result = result or {}
        if step.action == "unsubscribe":
            _unsubscribed(sub.pk)
        elif step.action in ("subscribe", "update"):
            remote_id = result.get("subscriptionId")
            if step.action == "subscribe" and not isinstance(remote_id, str):
                _refused(sub, step, McpCallError("protocol", "no subscriptionId in the answer"))
                return
            if step.action == "subscribe":
                sub.remote_id = str(remote_id)[:200]
                sub.remote_state = "active"
            sub.remote_config = _config_key(
                {k: v for k, v in step.arguments.items() if k != "subscriptionId"}
            )
            sub.last_error = sub.last_error_message = ""
            previous = sub.status
            if sub.status == SubscriptionStatus.PENDING:
                sub.status = SubscriptionStatus.ACTIVE
            sub.save()
            status_changed(sub, previous=previous, actor=SERVER, reason="mcpe_subscribed")
        else:
            sub.remote_state = "paused" if step.action == "pause" else "active"
            sub.save(update_fields=["remote_state", "updated_at"])
            subscription_broadcast(sub)


def _refused(sub: Subscription, step: Step, error: McpCallError) -> None:
    sub.last_error = "server_refused"
    sub.last_error_message = error.message[:500]
    if step.action == "unsubscribe":
        sub.unsubscribe_state = UnsubscribeState.FAILED
        sub.unsubscribe_last_error = error.message[:300]
        sub.save()
        subscription_broadcast(sub)
        return
    previous = sub.status
    if step.action == "subscribe":
        # A refusal is an answer, not a fault: retrying it would loop.
        sub.status = SubscriptionStatus.FAILED
        sub.ended_at = timezone.now()
    sub.save()
    status_changed(sub, previous=previous, actor=SERVER, reason="server_refused")


# --- what the server sends -----------------------------------------------------------


def _occurrence(event: Any) -> dict[str, Any] | None:
    """An MCPE event as the intake stores it (and the host receives it)."""
    if not isinstance(event, dict) or not isinstance(event.get("id"), str):
        return None
    raw_metadata = event.get("metadata")
    metadata: dict[str, Any] = raw_metadata if isinstance(raw_metadata, dict) else {}
    return {
        "eventId": event["id"],
        "name": event.get("type"),
        "timestamp": metadata.get("timestamp"),
        "data": event.get("data"),
        "metadata": metadata,
    }


def mcpe_notification_take(item: str, method: str, params: dict[str, Any]) -> None:
    user_id, server_id = _pair(item)
    remote_id = params.get("subscriptionId")
    sub = (
        Subscription.objects.filter(
            user_id=user_id, server_id=server_id, mode=Mode.MCPE, remote_id=remote_id
        )
        .exclude(remote_id="")
        .first()
    )
    if sub is None:
        log.info("MCPE %s for a subscription we do not hold (%r); dropped", method, remote_id)
        return
    if method == "events/subscription_expired":
        _expired_by_server(sub.pk)
        return
    events = [params.get("event")] if method == "events/event" else params.get("events") or []
    occurrences = [o for o in (_occurrence(e) for e in events) if o is not None]
    if occurrences:
        events_take_in(
            subscription_id=sub.pk,
            occurrences=occurrences,
            cursor=None,
            cursor_given=False,
            source="mcpe",
        )


def _expired_by_server(subscription_id: str) -> None:
    with transaction.atomic():
        sub = (
            Subscription.objects.select_for_update(no_key=True, of=("self",))
            .select_related("server", "user")
            .get(pk=subscription_id)
        )
        if sub.status not in SERVED:
            return
        previous = sub.status
        sub.status = SubscriptionStatus.EXPIRED
        sub.ended_at = timezone.now()
        sub.remote_state = ""
        sub.save()
        status_changed(sub, previous=previous, actor=SERVER, reason="expired_by_server")


# --- the held session ----------------------------------------------------------------


def _opening(item: str):
    user_id, server_id = _pair(item)
    sub = (
        _served()
        .select_related("user", "server")
        .filter(user_id=user_id, server_id=server_id)
        .first()
    )
    if sub is None or sub.server.deleted_at is not None:
        return None
    # The legacy handshake: MCPE notifications travel on its GET stream.
    return dataclasses.replace(target_for(user=sub.user, server=sub.server), mode="legacy")


async def _listed(session: McpSession) -> dict[str, str]:
    listed = await mcpe_tool(session, TOOLS["list"], {})
    found = listed.get("subscriptions", listed.get("result"))
    rows: list[Any] = found if isinstance(found, list) else []
    return {
        str(row["subscriptionId"]): str(row.get("status") or "active")
        for row in rows
        if isinstance(row, dict) and row.get("subscriptionId") is not None
    }


async def mcpe_hold(item: str, report: StreamReport) -> HoldOutcome:
    target = await in_db_thread(_opening)(item)
    if target is None:
        return "done"
    take = in_db_thread(mcpe_notification_take)

    async def on_notification(method: str, params: dict[str, Any]) -> None:
        report.frame()
        await take(item, method, params)

    async with McpSession(target, on_mcpe=on_notification) as session:
        await report.connected()
        while True:
            report.changed.clear()
            remote = await _listed(session)
            for step in await in_db_thread(mcpe_plan)(item, remote):
                try:
                    result = await mcpe_tool(session, TOOLS[step.action], step.arguments)
                except McpCallError as exc:
                    if exc.category not in ("mcp_error", "protocol"):
                        raise  # the session failed: reconnect
                    await in_db_thread(mcpe_step_done)(step, None, exc)
                else:
                    await in_db_thread(mcpe_step_done)(step, result, None)
            if not await in_db_thread(mcpe_still_wanted)(item):
                return "done"
            with anyio.move_on_after(settings.MCPE_CHECK_INTERVAL):
                await report.changed.wait()


def mcpe_health_changed(item: str) -> None:
    user_id, server_id = _pair(item)
    for sub in _served().filter(user_id=user_id, server_id=server_id):
        subscription_broadcast(sub)


MCPE_KIND = HeldKind(
    name=MCPE,
    wanted=mcpe_wanted,
    still_wanted=mcpe_still_wanted,
    hold=mcpe_hold,
    health_changed=mcpe_health_changed,
)
