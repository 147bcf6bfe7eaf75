"""Conversation context: one user message to every consented server, within
the host's budget, merged and recorded.

``conversation_message`` is async (it runs in daphne's event loop) and keeps
the database out of the concurrent part:

1. plan (one thread hop, three statements; ``consent.services.conversation_plan``):
   the user, the servers of the request or thread, which of them have a live
   ``conversation:read`` grant *now* (no cache, so a revoke counts for the
   very next message), policy and switch-offs; in the same hop, the consent
   check before the send for the targets whose pooled sessions are already
   open (``consent.enforce``; the others are checked once theirs opens);
2. fan out (``consent.fanout``): ``conversation/userMessage`` to every
   target at once over pooled sessions; whatever has not answered at the
   deadline is cancelled and recorded as ``timeout``;
3. one thread hop for the rest: the answers' consent check before they are
   forwarded, merge (pure, ``consent.merge``), and the record (usually one
   INSERT): an injection row per server, and when needed grants' last use,
   timeout counting and switch-offs, the thread's servers;
4. after the reply, a worker pushes the new rows to the live pages.

The budget is the host's wait for the reply, so the fan-out stops waiting
a little before it ends: by the time step 3 took lately (``_Reserve``).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from consent.enforce import (
    CONSENT_UNAVAILABLE,
    SERVER_BLOCKED,
    Verdict,
    outbound_check_many,
)
from consent.fanout import WITHDRAWN, Outcome, conversation_fanout
from consent.merge import Answer, Merged, merge
from consent.models import Conversation, Grant, Injection, InjectionOutcome, InjectionSource
from consent.pool import SessionPool, pool_for_loop
from consent.services.conversation_plan import Plan, conversation_plan, message_validate
from consent.services.policy import conversation_disable, conversation_timeouts_record
from switchboard import metrics
from switchboard.actors import Actor
from switchboard.broadcast import broadcast_topics, broadcast_topics_now
from switchboard.mcp.session import McpSession
from switchboard.models import Host, User
from switchboard.reconnect import surviving_reconnects
from switchboard.trust import server_text_trust


@dataclass
class MessageResult:
    context: str
    items: list[dict[str, Any]]
    skipped: list[dict[str, str]]
    budget_ms: int
    elapsed_ms: int = 0
    injections: list[str] = field(default_factory=list)
    phases_ms: dict[str, float] = field(default_factory=dict)


def _answers(outcomes: list[Outcome]) -> list[Answer]:
    return [
        Answer(
            server_id=o.target.server.id,
            server_name=o.target.server.name,
            trusted=o.target.server.trust == "trusted",
            priority=o.target.server.priority,
            reply=o.reply,
            latency_ms=o.latency_ms,
        )
        for o in outcomes
        if o.outcome == InjectionOutcome.OK and o.reply is not None
    ]


def conversation_record(
    *,
    plan: Plan,
    host: Host,
    conversation_id: str,
    message_id: str,
    outcomes: list[Outcome],
    merged: Merged,
    row_ids: list[str] | None = None,
) -> list[Injection]:
    """Write down what happened to this message (``row_ids``: the rows' ids,
    one per outcome, when the caller may have to write them again).

    The usual message needs one statement (the injection rows); timeouts,
    a new thread or a grant's coarse last-use time add a transaction.
    """
    now = timezone.now()
    by_server = {c.server_id: c for c in merged.contributions}
    rows = []
    for index, o in enumerate(outcomes):
        server = o.target.server
        contribution = by_server.get(server.id)
        outcome = o.outcome
        if outcome == InjectionOutcome.OK and server.id in merged.over_budget:
            outcome = InjectionOutcome.OVER_BUDGET
        rows.append(
            Injection(
                **({"id": row_ids[index]} if row_ids else {}),
                created_at=now,
                host=host,
                user=plan.user,
                server=server,
                grant_id=o.target.grant_id,
                conversation_id=conversation_id,
                message_id=message_id,
                source=InjectionSource.CONSOLE,
                outcome=outcome,
                latency_ms=o.latency_ms,
                chars=contribution.chars if contribution else 0,
                truncated=contribution.truncated if contribution else False,
                text=contribution.text if contribution else "",
                structured=contribution.structured_context if contribution else None,
                error=o.error[:200],
            )
        )
    stale = now - timedelta(seconds=settings.GRANT_LAST_USED_RESOLUTION)
    used = [
        o.target.grant_id
        for o in outcomes
        if o.target.grant_used_at is None or o.target.grant_used_at < stale
    ]
    timed_out = {
        o.target.server.id: o.target.server.host_id
        for o in outcomes
        if o.outcome == InjectionOutcome.TIMEOUT
    }
    # Only servers whose count is not already 0 need resetting.
    answered = [
        o.target.server.id
        for o in outcomes
        if o.outcome != InjectionOutcome.TIMEOUT and plan.timeouts.get(o.target.server.id)
    ]
    thread_changes = plan.thread_servers is None or bool(
        set(plan.listed) - set(plan.thread_servers)
    )
    if not (used or timed_out or answered or thread_changes):
        Injection.objects.bulk_create(rows)
        return rows
    with transaction.atomic():
        Injection.objects.bulk_create(rows)
        if used:
            Grant.objects.filter(pk__in=used).update(last_used_at=now)
        if timed_out or answered:
            _count_timeouts(outcomes, timed_out=timed_out, answered=answered)
        if thread_changes:
            _remember_servers(host=host, conversation_id=conversation_id, plan=plan)
    return rows


def conversation_record_surely(**kwargs: Any) -> list[Injection]:
    """``conversation_record`` once the message has gone out: what a server
    received must be on record even when PostgreSQL drops this request's
    connections under it (docs/reliability.md row 3), again and again. The rows carry
    ids chosen before the first try, so when a try did commit (only its
    answer was lost) the next finds them instead of writing them twice."""
    row_ids = [Injection._meta.pk.get_default() for _ in kwargs["outcomes"]]

    def write() -> list[Injection]:
        try:
            return conversation_record(**kwargs, row_ids=row_ids)
        except IntegrityError:
            written = list(Injection.objects.filter(pk__in=row_ids))
            if len(written) == len(row_ids):
                return written
            raise

    return surviving_reconnects(write, what=f"recording message {kwargs['message_id']}")


def _count_timeouts(
    outcomes: list[Outcome], *, timed_out: dict[str, str], answered: list[str]
) -> None:

    limit = settings.CONVERSATION_TIMEOUTS_TO_DISABLE
    for server_id in conversation_timeouts_record(
        timed_out=timed_out, answered_ids=answered, limit=limit
    ):
        server = next(o.target.server for o in outcomes if o.target.server.id == server_id)
        conversation_disable(
            server=server,
            actor=Actor.system("conversation timeouts"),
            reason="timeouts",
            timeouts=limit,
        )


def _remember_servers(*, host: Host, conversation_id: str, plan: Plan) -> None:
    """The thread's servers: the union of those the host listed for it."""
    if plan.thread_servers is None:
        Conversation.objects.get_or_create(
            conversation_id=conversation_id, defaults={"host": host, "server_ids": plan.listed}
        )
        return
    if set(plan.listed) - set(plan.thread_servers):
        thread = Conversation.objects.select_for_update(no_key=True).get(
            conversation_id=conversation_id
        )
        union = sorted(set(thread.server_ids) | set(plan.listed))
        Conversation.objects.filter(pk=thread.pk).update(server_ids=union)


def injections_push(*, user: User) -> None:
    """The user's "what was injected" list and the staff's re-read themselves
    (after commit)."""
    broadcast_topics(topics=["injections"], host_id=user.tenant_id, user_id=user.id)


def _push_later(rows: list[Injection]) -> None:
    """The fan-out's records are written; pages hear of them at once, from the
    broadcast helper's own thread: no template, database or Redis round trip
    on this event loop or inside the budget."""
    user = rows[0].user
    broadcast_topics_now(topics=["injections"], host_id=user.tenant_id, user_id=user.id)


def _items(merged: Merged) -> list[dict[str, Any]]:
    return [
        {
            "server": c.server_id,
            "context": c.context,
            "structured_context": c.structured_context,
            "latency_ms": c.latency_ms,
            "chars": c.chars,
            "truncated": c.truncated,
            "trust": server_text_trust(trusted=c.trusted),
        }
        for c in merged.contributions
    ]


async def conversation_message(
    *,
    host: Host,
    conversation_id: str,
    user_external_id: str,
    message_id: str,
    content: str,
    recent_history: list[dict] | None = None,
    server_ids: list[str] | None = None,
    started: float | None = None,
) -> MessageResult:
    """Send one user message to the consented servers and merge what comes back
    within the host's budget (counted from ``started``, a monotonic time)."""
    started = started if started is not None else time.monotonic()
    message_validate(
        conversation_id=conversation_id,
        message_id=message_id,
        content=content,
        recent_history=recent_history,
    )
    phases = {"entry": time.monotonic()}
    plan, prechecked = await sync_to_async(_plan_and_precheck)(
        pool=pool_for_loop(),
        host=host,
        conversation_id=conversation_id,
        user_external_id=user_external_id,
        server_ids=server_ids,
    )
    phases["plan"] = time.monotonic()
    outcomes = await conversation_fanout(
        plan.targets,
        message_id=message_id,
        content=content,
        history=recent_history,
        deadline=started + plan.budget - _reserve.seconds(plan.budget),
        prechecked=prechecked,
    )
    phases["fanout"] = time.monotonic()
    outcomes, withdrawn, merged, rows = await sync_to_async(_forward_merge_record)(
        plan=plan,
        host=host,
        conversation_id=conversation_id,
        message_id=message_id,
        outcomes=outcomes,
    )
    phases["record"] = time.monotonic()
    _reserve.observe(
        phases["record"] - phases["fanout"],
        waited_out=any(o.outcome == InjectionOutcome.TIMEOUT for o in outcomes),
    )
    if rows:
        _push_later(rows)
    skipped = list(plan.skipped)
    skipped += [_refused(o) for o in withdrawn]
    for o in outcomes:
        if o.outcome != InjectionOutcome.OK:
            skipped.append({"server": o.target.server.id, "reason": o.outcome})
    skipped += [{"server": sid, "reason": "over_budget"} for sid in merged.over_budget]
    _count_calls(plan=plan, withdrawn=withdrawn, outcomes=outcomes, started=started)
    return MessageResult(
        context=merged.context,
        items=_items(merged),
        skipped=skipped,
        budget_ms=plan.policy.conversation_budget_ms,
        elapsed_ms=round((time.monotonic() - started) * 1000),
        injections=[r.id for r in rows],
        phases_ms=_phases_ms(started, phases),
    )


# What the metrics call each injection outcome (docs/production.md, Metrics): a
# server that answered past the host's caps still answered.
_CALL_OUTCOMES: dict[str, str] = {
    InjectionOutcome.OK: "answered",
    InjectionOutcome.OVER_BUDGET: "answered",
    InjectionOutcome.TIMEOUT: "timeout",
    InjectionOutcome.ERROR: "error",
}


def _count_calls(
    *, plan: Plan, withdrawn: list[Outcome], outcomes: list[Outcome], started: float
) -> None:
    """Once per server named in the plan: skipped ones (not asked, or whose
    consent went while the call was being made) as ``skipped``."""
    calls = metrics.conversation_calls
    skipped = len(plan.skipped) + len(withdrawn)
    if skipped:
        calls.labels(outcome="skipped").inc(skipped)
    for o in outcomes:
        calls.labels(outcome=_CALL_OUTCOMES.get(o.outcome, "error")).inc()
    metrics.conversation_duration.observe(time.monotonic() - started)


def _plan_and_precheck(
    *, pool: SessionPool, **names: Any
) -> tuple[Plan, dict[str, tuple[McpSession, Verdict]]]:
    """Step 1 in one thread hop: the plan, then the consent check before the
    send for the targets whose sessions are open already (one statement).
    Their check comes after their session was open and right before the
    send, as the fan-out's own would, without a hop of its own."""
    plan = conversation_plan(**names)
    open_now = {}
    for target in plan.targets:
        session = pool.open_session(
            server_id=target.server.id, url=target.server.url, headers=target.headers
        )
        if session is not None:
            open_now[target.grant_id] = session
    if not open_now:
        return plan, {}
    verdicts = outbound_check_many(grant_ids=list(open_now))
    return plan, {grant: (session, verdicts[grant]) for grant, session in open_now.items()}


def _forward_merge_record(
    *, plan: Plan, host: Host, conversation_id: str, message_id: str, outcomes: list[Outcome]
) -> tuple[list[Outcome], list[Outcome], Merged, list[Injection]]:
    """Step 3 in one thread hop: which answers may still be forwarded, the
    merge, the record. (What was withdrawn, what remains, the merge, the rows.)"""
    outcomes = _forward_allowed(outcomes)
    withdrawn = [o for o in outcomes if o.outcome == WITHDRAWN]
    outcomes = [o for o in outcomes if o.outcome != WITHDRAWN]
    merged = merge(
        _answers(outcomes),
        per_server=plan.policy.max_chars_per_server,
        per_message=plan.policy.max_chars_per_message,
    )
    rows = conversation_record_surely(
        plan=plan,
        host=host,
        conversation_id=conversation_id,
        message_id=message_id,
        outcomes=outcomes,
        merged=merged,
    )
    return outcomes, withdrawn, merged, rows


class _Reserve:
    """How much of the budget to keep for step 3 and the reply:
    ``CONVERSATION_REPLY_RESERVE`` plus what step 3 took lately (the 90th
    percentile of the last messages whose fan-out ran to its deadline, those
    being the ones a reserve is for; of any message until there are some),
    that part at most a tenth of the budget (a stall must not eat the
    servers' time), the whole at most half. Without it a server that never answers would cost the
    host the whole budget and then the record on top."""

    KEEP = 32

    def __init__(self) -> None:
        self._waited_out: deque[float] = deque(maxlen=self.KEEP)
        self._any: deque[float] = deque(maxlen=self.KEEP)

    def observe(self, seconds: float, *, waited_out: bool) -> None:
        (self._waited_out if waited_out else self._any).append(seconds)

    def seconds(self, budget: float) -> float:
        recent = sorted(self._waited_out or self._any)
        lately = recent[int(len(recent) * 0.9)] if recent else 0.0
        kept = settings.CONVERSATION_REPLY_RESERVE + min(lately, budget / 10)
        return min(kept, budget / 2)  # whatever the setting, servers get half


_reserve = _Reserve()


def _forward_allowed(outcomes: list[Outcome]) -> list[Outcome]:
    """Answers are forwarded only while their consent still holds: a revoke
    or a block that committed while a server was answering stops its answer
    (``consent.enforce``, one statement for them all)."""
    answered = [o for o in outcomes if o.reply is not None]
    if not answered:
        return outcomes
    verdicts = outbound_check_many(grant_ids=[o.target.grant_id for o in answered])
    return [
        o
        if o.reply is None or verdicts[o.target.grant_id].allowed
        else Outcome(o.target, WITHDRAWN, o.latency_ms, error=verdicts[o.target.grant_id].reason)
        for o in outcomes
    ]


def _refused(outcome: Outcome) -> dict[str, str]:
    """A server the consent check stopped once its session was open, in the
    contract's words: a blocked server is ``disabled`` as in the plan; a
    consent store that could not be read is ``no_consent`` saying so."""
    server = outcome.target.server.id
    if outcome.error == SERVER_BLOCKED:
        return {"server": server, "reason": "disabled", "detail": "blocked"}
    if outcome.error == CONSENT_UNAVAILABLE:
        return {"server": server, "reason": "no_consent", "detail": CONSENT_UNAVAILABLE}
    return {"server": server, "reason": "no_consent"}


def _phases_ms(started: float, marks: dict[str, float]) -> dict[str, float]:
    """How long each step took (ms), for the benchmark's profile and the logs."""
    out, previous = {}, started
    for name, moment in marks.items():
        out[name] = round((moment - previous) * 1000, 2)
        previous = moment
    return out
