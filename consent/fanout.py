"""The fan-out itself: one message to many MCP servers at once, under a
deadline. No database here but the consent check before a message leaves
(``consent.enforce``: every message, once its session is ready, whether it
was opened or already held; one statement for the servers whose sessions
are ready together); the caller plans and records; sessions come from the
per-loop pool (``consent.pool``).

A session that was already open when the caller planned was checked by the
caller in the plan's own thread hop (``prechecked``: the session and its
verdict), after it was open and right before the send, as here; a hop back
to the database thread per message is what that saves. A session that is
not that same session by the time the message goes (it closed, another
opened) is checked here as any other.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from consent.enforce import (
    CONSENT_UNAVAILABLE,
    OutboundRefused,
    Verdict,
    outbound_check_many_async,
)
from consent.merge import Reply, ReplyRejected, reply_from_result
from consent.models import InjectionOutcome
from consent.pool import pool_for_loop
from switchboard.mcp.errors import McpCallError
from switchboard.mcp.session import McpSession
from switchboard.models import McpServer

log = logging.getLogger(__name__)

# Not an injection outcome: the consent check refused once the session was
# open (``Outcome.error`` says why: ``consent.enforce``), so nothing was sent
# and nothing is recorded; the reply lists it as skipped with that reason.
WITHDRAWN = "withdrawn"


@dataclass
class Target:
    server: McpServer
    grant_id: str
    headers: dict[str, str]
    grant_used_at: datetime | None = None


class ConsentChecks:
    """``consent.enforce`` for the calls of one fan-out, batched: the calls
    whose sessions are ready together (with pooled sessions, every server of
    the message) are checked in one statement (``outbound_check_many``); a
    call whose session opens later is checked in the next batch, right
    before it is sent."""

    def __init__(self) -> None:
        self._waiting: dict[str, list[asyncio.Future[Verdict]]] = {}
        self._batch: asyncio.Task | None = None
        self._running: set[asyncio.Task] = set()

    async def verdict(self, grant_id: str) -> Verdict:
        future: asyncio.Future[Verdict] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(grant_id, []).append(future)
        if self._batch is None:
            self._batch = asyncio.create_task(self._check())
            self._running.add(self._batch)
            self._batch.add_done_callback(self._running.discard)
        return await future

    async def _check(self) -> None:
        # One turn of the loop: the other calls whose sessions are already
        # ready reach this point meanwhile and join the batch.
        await asyncio.sleep(0)
        waiting, self._waiting, self._batch = self._waiting, {}, None
        try:
            verdicts = await outbound_check_many_async(grant_ids=list(waiting))
        except Exception:  # fail closed: no verdict, no send
            log.exception("the consent check failed")
            verdicts = dict.fromkeys(waiting, Verdict(False, CONSENT_UNAVAILABLE))
        except BaseException:
            for futures in waiting.values():
                for future in futures:
                    future.cancel()
            raise
        for grant_id, futures in waiting.items():
            for future in futures:
                if not future.done():
                    future.set_result(verdicts[grant_id])


@dataclass
class Outcome:
    target: Target
    outcome: str
    latency_ms: int
    reply: Reply | None = None
    error: str = ""


async def _ask(
    target: Target,
    *,
    message_id: str,
    content: str,
    history: list[dict] | None,
    deadline: float,
    checks: ConsentChecks,
    prechecked: tuple[McpSession, Verdict] | None,
) -> Outcome:
    started = time.monotonic()

    async def call(session):
        # The deadline is the SDK's own read timeout on this request: the
        # call ends at it, not at whenever the caller next looks.
        return await session.user_message(
            message_id=message_id,
            content=content,
            recent_history=history,
            timeout=max(deadline - time.monotonic(), 0.001),
        )

    pool = pool_for_loop()
    server_id, url, headers = target.server.id, target.server.url, target.headers
    try:
        session, _ = await pool.ready(server_id=server_id, url=url, headers=headers)
        # The plan read the grant before; a revoke or a block that committed
        # since (while the session opened, or in the instant before an open
        # one is used) must stop the message (docs/reliability.md rows 10, 10b).
        if prechecked is not None and prechecked[0] is session:
            verdict = prechecked[1]
        else:
            verdict = await checks.verdict(target.grant_id)
        if not verdict.allowed:
            raise OutboundRefused(verdict)
        result = await pool.call(
            server_id=server_id, url=url, headers=headers, session=session, call=call
        )
        reply = reply_from_result(result, max_chars=settings.CONVERSATION_REPLY_MAX_CHARS)
    except OutboundRefused as refused:
        return Outcome(target, WITHDRAWN, _ms(started), error=refused.verdict.reason)
    except ReplyRejected as rejected:
        return Outcome(target, InjectionOutcome.ERROR, _ms(started), error=rejected.reason)
    except McpCallError as error:
        kind = InjectionOutcome.TIMEOUT if error.category == "timeout" else InjectionOutcome.ERROR
        return Outcome(target, kind, _ms(started), error=error.category)
    return Outcome(target, InjectionOutcome.OK, _ms(started), reply=reply)


def _ms(started: float) -> int:
    return max(0, round((time.monotonic() - started) * 1000))


def retrieve_exception(task: asyncio.Task) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.debug("late conversation call failed: %r", task.exception())


async def conversation_fanout(
    targets: list[Target],
    *,
    message_id: str,
    content: str,
    history: list[dict] | None,
    deadline: float,
    prechecked: Mapping[str, tuple[McpSession, Verdict]] | None = None,
) -> list[Outcome]:
    """Ask every target at once; at ``deadline`` (monotonic) stop waiting.
    Once each target's session is ready, ``consent.enforce`` confirms the
    grant is still live and the server not blocked right before the message
    goes (``WITHDRAWN`` when not); ``prechecked`` (by grant id): sessions
    the caller found open and checked already, with their verdicts."""
    if not targets:
        return []
    started = time.monotonic()
    checks = ConsentChecks()
    prechecked = prechecked or {}
    tasks = {
        asyncio.create_task(
            _ask(
                t,
                message_id=message_id,
                content=content,
                history=history,
                deadline=deadline,
                checks=checks,
                prechecked=prechecked.get(t.grant_id),
            )
        ): t
        for t in targets
    }
    done, late = await asyncio.wait(tasks, timeout=max(deadline - time.monotonic(), 0))
    outcomes = []
    for task in done:
        try:
            outcomes.append(task.result())
        except Exception as exc:  # a bug of ours must not lose the other answers
            log.exception("conversation call crashed")
            outcomes.append(
                Outcome(tasks[task], InjectionOutcome.ERROR, _ms(started), error=type(exc).__name__)
            )
    for task in late:
        task.cancel()  # its answer, if any, is dropped; the SDK tells the server
        task.add_done_callback(retrieve_exception)
        outcomes.append(
            Outcome(tasks[task], InjectionOutcome.TIMEOUT, _ms(started), error="timeout")
        )
    order = {id(t): i for i, t in enumerate(targets)}
    outcomes.sort(key=lambda o: order[id(o.target)])
    return outcomes
