"""Subscriptions on MCPE servers (docs/host-integration.md "MCPE servers"; the MCPE
proposal).

An MCPE server keeps subscriptions per MCP session and sends their events
as notifications on it. So the session worker holds one session per user
and server that has MCPE subscriptions (kind ``mcpe``, item
``<user id>+<server id>``), with that user's credentials, and:

- **Reconciles** what the server holds with what we want, over that session:
  ``events_list`` first, read in every shape the implementations answer
  (``switchboard.mcp.mcpe.listed_states``: the reference implementation's
  rows carry ``id``), then ``events_subscribe`` for what the server does not
  hold (never for one it lists: no duplicates), ``events_update`` (the
  filter or expiry changed), ``events_pause`` / ``events_resume`` (only on a
  server that has them), ``events_unsubscribe`` (revoked, and anything on
  the session that is no subscription of ours). Each answer is checked
  (pause must say ``paused``, resume ``active``, update the same id), and
  the next ``events_list`` is the proof. It does so when it opens, when a
  change to one of them wakes it (``mcpe_wake``), and every
  MCPE_CHECK_INTERVAL, which also proves the session is alive: a failed
  check reconnects (backoff capped by SESSION_WORKER_BACKOFF_MAX).
- **A lost session**: a new session's list is empty, so each subscription
  that was on the old one is made again (a new ``remote_id``) and the host
  gets one ``subscription.gap`` with ``reason: "session_lost"`` and
  ``cursor: null`` per subscription (events emitted meanwhile are gone
  upstream), flagged on its page.
- **Asks consent first**: a tool call that hands the server what the user
  asked for (subscribe, update, resume) leaves only if ``consent.enforce``
  allows it right before it is sent; one it refuses is not sent, and its
  subscription's ``last_error`` says why. Pause and unsubscribe always go.
  A subscribe answered after the subscription ended here (revoked while the
  call was in flight) is taken down at once (``events_unsubscribe``).
- **Takes in** ``events/event`` and ``events/batch`` (fanned into single
  events) through the same intake as push and poll
  (``subscriptions.services.mcpe_intake``): stored once per event id,
  filtered by the host's filter, forwarded or kept for a digest.
  ``events/subscription_expired`` → ``expired`` + ``subscription.updated``.
  At most MCPE_MAX_EVENTS_PER_MINUTE per user are forwarded
  (``mcpe_limits``); what passes it is dropped, once a minute a gap
  (``reason: "rate_limited"``) and a ledger entry say so.

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
from datetime import UTC
from typing import Any

import anyio
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from consent.enforce import MESSAGES, Verdict
from subscriptions.models import (
    Mode,
    Subscription,
    SubscriptionStatus,
    UnsubscribeState,
    mcpe_session_item,
    mcpe_session_pair,
)
from subscriptions.services.common import gap_flag, status_changed, subscription_broadcast
from subscriptions.services.intake import SERVER
from subscriptions.services.mcpe_intake import (
    SERVED,
    mcpe_expired_by_server,
    mcpe_notification_take,
)
from subscriptions.services.remote import events_step_verdict, target_for
from switchboard.actors import Actor
from switchboard.mcp import McpCallError, McpSession
from switchboard.mcp.mcpe import answered_id, listed_states, mcpe_can_pause, mcpe_tool
from switchboard.sessions.db import in_db_thread
from switchboard.sessions.registry import HeldKind, HoldOutcome
from switchboard.sessions.report import StreamReport
from switchboard.sessions.wakeup import held_stream_changed

log = logging.getLogger(__name__)

MCPE = Mode.MCPE.value
SYSTEM = Actor.system("subscriptions")
TOOLS = {
    "subscribe": "events_subscribe",
    "update": "events_update",
    "pause": "events_pause",
    "resume": "events_resume",
    "unsubscribe": "events_unsubscribe",
    "list": "events_list",
}


def _served():
    return Subscription.objects.filter(mode=Mode.MCPE).filter(
        Q(status__in=SERVED) | Q(unsubscribe_state=UnsubscribeState.PENDING)
    )


def mcpe_wanted() -> list[str]:
    pairs = _served().values_list("user_id", "server_id").distinct()
    return sorted({mcpe_session_item(user_id, server_id) for user_id, server_id in pairs})


def mcpe_still_wanted(item: str) -> bool:
    user_id, server_id = mcpe_session_pair(item)
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
        # RFC 3339 in UTC with a `Z`: the reference implementation's zod
        # `datetime()` refuses an offset.
        at = sub.expires_at.astimezone(UTC).isoformat(timespec="milliseconds")
        arguments["expiresAt"] = at.replace("+00:00", "Z")
    if sub.handler:
        arguments["handler"] = dict(sub.handler)  # as the policy allowed it
    return arguments


def _config_key(arguments: dict[str, Any]) -> str:
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class Step:
    """One tool call the reconcile makes for one subscription (``""``: a
    subscription on the session that is none of ours)."""

    action: str  # a key of TOOLS
    subscription_id: str
    arguments: dict[str, Any]
    config: str = ""  # subscribe/update: the key of what the server is made to hold
    lost_remote_id: str = ""  # subscribe: the id it had on a session that was lost


def _update_arguments(remote_id: str, arguments: dict[str, Any]) -> dict[str, Any]:
    # A handler cannot be changed with events_update (the proposal's schema).
    return {"subscriptionId": remote_id, **{k: v for k, v in arguments.items() if k != "handler"}}


def mcpe_plan(item: str, remote: dict[str, str]) -> list[Step]:
    """What to call so that the server (``remote``: its subscription ids on
    this session → status) holds what we want."""
    user_id, server_id = mcpe_session_pair(item)
    steps: list[Step] = []
    ours: set[str] = set()
    served = _served().select_related("server").filter(user_id=user_id, server_id=server_id)
    for sub in served.order_by("created_at"):
        ours.add(sub.remote_id)
        on_server = bool(sub.remote_id) and sub.remote_id in remote
        if sub.unsubscribe_state == UnsubscribeState.PENDING:
            if on_server:
                steps.append(Step("unsubscribe", sub.pk, {"subscriptionId": sub.remote_id}))
            else:  # the server no longer has it: nothing to take down
                _unsubscribed(sub.pk)
            continue
        if on_server and remote[sub.remote_id] == "expired":
            # Its `expiresAt` passed there (the reference implementation
            # says so only in the list, with no notification).
            mcpe_expired_by_server(sub.pk)
            continue
        arguments = subscribe_arguments(sub)
        config = _config_key(arguments)
        if not on_server:
            steps.append(
                Step("subscribe", sub.pk, arguments, config=config, lost_remote_id=sub.remote_id)
            )
            continue
        if config != sub.remote_config:
            steps.append(
                Step("update", sub.pk, _update_arguments(sub.remote_id, arguments), config=config)
            )
        if not mcpe_can_pause((sub.server.capabilities or {}).get("mcpe")):
            continue  # pausing is refused at the API (409 not_supported)
        paused_there = remote[sub.remote_id] == "paused"
        if sub.paused_at is not None and not paused_there:
            steps.append(Step("pause", sub.pk, {"subscriptionId": sub.remote_id}))
        elif sub.paused_at is None and paused_there:
            steps.append(Step("resume", sub.pk, {"subscriptionId": sub.remote_id}))
    # Anything else on this session (ours alone) is a leftover: a subscribe
    # whose answer was lost, one we ended: it would deliver to nobody.
    for remote_id in sorted(set(remote) - ours):
        steps.append(Step("unsubscribe", "", {"subscriptionId": remote_id}))
    return steps


def _unsubscribed(subscription_id: str) -> None:
    Subscription.objects.filter(pk=subscription_id).update(
        unsubscribe_state=UnsubscribeState.DONE, remote_state=""
    )


# What a step's answer must say for it to count as done on the server.
EXPECTED_STATUS = {"pause": "paused", "resume": "active"}


def _answer_problem(step: Step, sub: Subscription, result: dict[str, Any]) -> str:
    """Why an answer does not show the step done ("" when it does)."""
    if step.action == "subscribe":
        return "" if answered_id(result) else "no subscription id in the answer"
    if step.action == "unsubscribe":
        return ""  # `{success: false}` means the server did not hold it: gone either way
    said = answered_id(result)
    if said is not None and said != sub.remote_id:
        return f"the answer names subscription {said}, not {sub.remote_id}"
    expected = EXPECTED_STATUS.get(step.action)
    status = result.get("status")
    if expected and status is not None and status != expected:
        return f"the server answered status {status!r}, not {expected!r}"
    return ""


def _not_found(error: McpCallError) -> bool:
    return "not found" in error.message.lower()


def _locked(subscription_id: str) -> Subscription | None:
    """The step's subscription, locked for the rest of the caller's
    transaction (a revoke waits for the step's record, or the step for it)."""
    return (
        Subscription.objects.select_for_update(no_key=True, of=("self",))
        .select_related("server", "user")
        .filter(pk=subscription_id)
        .first()
    )


def mcpe_step_done(step: Step, result: dict[str, Any] | None, error: McpCallError | None) -> bool:
    """Record what one tool call did (or that the server refused it). True
    when the server's list should be read again at once (it lost one)."""
    if not step.subscription_id:
        log.info("MCPE leftover %s taken down: %s", step.arguments, error or result)
        return False
    with transaction.atomic():
        sub = _locked(step.subscription_id)
        if sub is None:
            return False
        result = result or {}
        if error is None and (problem := _answer_problem(step, sub, result)):
            error = McpCallError("protocol", f"{TOOLS[step.action]}: {problem}")
        if step.action != "unsubscribe" and sub.status not in SERVED:
            return error is None and _ended_meanwhile(sub, step, result)
        if error is not None:
            if step.action != "subscribe" and _not_found(error):
                return True  # gone from the session: the next list makes it again
            _refused(sub, step, error)
            return False
        if step.action == "unsubscribe":
            _unsubscribed(sub.pk)
        elif step.action in ("subscribe", "update"):
            if step.action == "subscribe":
                sub.remote_id = str(answered_id(result))[:200]
                sub.remote_state = str(result.get("status") or "active")[:12]
            sub.remote_config = step.config
            sub.last_error = sub.last_error_message = ""
            previous = sub.status
            if sub.status == SubscriptionStatus.PENDING:
                sub.status = SubscriptionStatus.ACTIVE
            sub.save()
            if step.lost_remote_id:
                _session_lost(sub, step.lost_remote_id)
            status_changed(sub, previous=previous, actor=SERVER, reason="mcpe_subscribed")
        else:
            sub.remote_state = EXPECTED_STATUS[step.action]
            if sub.last_error in MESSAGES:  # a call consent stopped went through since
                sub.last_error = sub.last_error_message = ""
            sub.save(
                update_fields=["remote_state", "last_error", "last_error_message", "updated_at"]
            )
            subscription_broadcast(sub)
    return False


def _ended_meanwhile(sub: Subscription, step: Step, result: dict[str, Any]) -> bool:
    """Answered after the subscription ended here (revoked, consent gone,
    while the call was in flight): what the server now holds would deliver
    to nobody, so it is owed an ``events_unsubscribe``, made at once (True:
    read the list again now)."""
    if step.action == "subscribe":
        sub.remote_id = str(answered_id(result))[:200]
    if not sub.remote_id or sub.unsubscribe_state == UnsubscribeState.DONE:
        return False
    sub.unsubscribe_state = UnsubscribeState.PENDING
    sub.save(update_fields=["remote_id", "unsubscribe_state", "updated_at"])
    subscription_broadcast(sub)
    return True


def mcpe_step_stopped(step: Step, verdict: Verdict) -> None:
    """``consent.enforce`` refused the call, so nothing was sent: its
    subscription says why (``last_error``: ``no_consent``,
    ``server_blocked``, ``consent_unavailable``) until a call for it goes
    through. The next check asks again."""
    if not step.subscription_id:
        return
    with transaction.atomic():
        sub = _locked(step.subscription_id)
        if sub is None or (sub.last_error, sub.last_error_message) == (
            verdict.reason,
            verdict.message,
        ):
            return
        sub.last_error = verdict.reason
        sub.last_error_message = verdict.message
        sub.save(update_fields=["last_error", "last_error_message", "updated_at"])
        subscription_broadcast(sub)


def _session_lost(sub: Subscription, lost_remote_id: str) -> None:
    """Made again after the server lost it: the host is told once."""
    try:
        with transaction.atomic():
            gap_flag(
                sub,
                cursor=None,
                source="session_lost",
                reason="session_lost",
                key=f"session_lost:{lost_remote_id}",
                actor=SERVER,
                summary=f"The MCPE session with {sub.server.name} was lost; the subscription "
                "was made again on a new one, and events emitted meanwhile are gone upstream",
                detail={"lost_remote_id": lost_remote_id, "remote_id": sub.remote_id},
            )
    except IntegrityError:
        pass  # told already (the same lost id)


def _refused(sub: Subscription, step: Step, error: McpCallError) -> None:
    sub.last_error = "server_refused"
    if step.action == "subscribe" and "maximum subscriptions" in error.message.lower():
        sub.last_error = "server_limit"  # the reference implementation's refusal text
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


# --- the held session ----------------------------------------------------------------


def _opening(item: str):
    user_id, server_id = mcpe_session_pair(item)
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
    return listed_states(await mcpe_tool(session, TOOLS["list"], {}))


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
        again = 0
        while True:
            report.changed.clear()
            remote = await _listed(session)
            relist = False
            for step in await in_db_thread(mcpe_plan)(item, remote):
                verdict = await events_step_verdict(step.action, *mcpe_session_pair(item))
                if not verdict.allowed:
                    # consent.enforce said no: nothing leaves, the subscription
                    # says why, and the next check asks again.
                    await in_db_thread(mcpe_step_stopped)(step, verdict)
                    continue
                try:
                    result = await mcpe_tool(session, TOOLS[step.action], step.arguments)
                except McpCallError as exc:
                    if exc.category not in ("mcp_error", "protocol"):
                        raise  # the session failed: reconnect
                    relist |= await in_db_thread(mcpe_step_done)(step, None, exc)
                else:
                    relist |= await in_db_thread(mcpe_step_done)(step, result, None)
                    # A subscription made again may still need pausing.
                    relist |= step.action == "subscribe"
            if not await in_db_thread(mcpe_still_wanted)(item):
                return "done"
            again = again + 1 if relist else 0
            if relist and again <= 3:
                continue  # read the list again now, to bring back what it lost
            with anyio.move_on_after(settings.MCPE_CHECK_INTERVAL):
                await report.changed.wait()


def mcpe_health_changed(item: str) -> None:
    user_id, server_id = mcpe_session_pair(item)
    for sub in _served().filter(user_id=user_id, server_id=server_id):
        subscription_broadcast(sub)


MCPE_KIND = HeldKind(
    name=MCPE,
    wanted=mcpe_wanted,
    still_wanted=mcpe_still_wanted,
    hold=mcpe_hold,
    health_changed=mcpe_health_changed,
)
