"""The lifecycle evaluation engine: pure functions over precompiled hooks.

No database, no clock, no I/O: the services load what the engine needs
(compiled declarations, live approvals, preferences, the session's firing
history), pass ``now`` in, and store what comes out. That keeps the hot path
measurable (``bench/lifecycle_eval.py``) and every rule unit-testable.

Evaluation of one lifecycle event is three steps, each a function:

1. ``select``: which valid declarations of the session's servers apply to
   this event (matchers, only on tool-use events, ANDed), whether the user
   approved each exact declaration, mute and downgrade preferences, and the
   priority policy; the survivors are ordered (effective priority, then the
   server's priority, then declaration order).
2. ``admit``: flood control that depends on history: the cooldown per hook,
   the rate limit per session, the cap on hooks per event. ``render`` then
   substitutes the template variables of the admitted few only (static
   text, or ``context_tool`` arguments).
3. ``budget``: the character caps (per event, per server), applied once the
   text of every admitted hook is known (``context_tool`` results included).

Every hook that matched but does not fire comes back as a ``Suppression``
with a reason: nothing is dropped silently. A declaration whose matcher does
not match is not a suppression; it simply does not apply.

Modules: ``compiled`` (declarations compiled for matching), ``facts`` (the
event and its template variables), ``policy`` (step 1 and ``render``),
``flood`` (steps 2 and 3), ``results``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hooks.engine.compiled import TOOL_EVENTS, CompiledHook, ServerHooks, compile_server
from hooks.engine.facts import (
    EventFacts,
    event_facts,
    serialize_tool_value,
    substitute,
    substitute_args,
)
from hooks.engine.flood import FloodState, Limits, ToolFailure, admit, budget
from hooks.engine.policy import (
    PRIORITIES,
    Matched,
    Permissions,
    effective_priority,
    match,
    render,
    select,
    select_matched,
)
from hooks.engine.results import Candidate, Fired, Result, Suppression
from switchboard.mcp.declarations import HOOK_EVENTS

__all__ = [
    "HOOK_EVENTS",
    "PRIORITIES",
    "TOOL_EVENTS",
    "Candidate",
    "CompiledHook",
    "EventFacts",
    "Fired",
    "FloodState",
    "Limits",
    "Matched",
    "Permissions",
    "Result",
    "ServerHooks",
    "Suppression",
    "ToolFailure",
    "admit",
    "budget",
    "compile_server",
    "effective_priority",
    "evaluate",
    "match",
    "event_facts",
    "render",
    "select",
    "select_matched",
    "serialize_tool_value",
    "substitute",
    "substitute_args",
]


def evaluate(
    servers: Sequence[ServerHooks],
    facts: EventFacts,
    permissions: Permissions,
    state: FloodState,
    limits: Limits,
    now: float,
    tool_results: Mapping[str, str | ToolFailure] | None = None,
) -> Result:
    """``select`` → ``admit`` → ``render`` → ``budget`` in one call (static context, or
    with ``context_tool`` results already known)."""
    candidates, suppressed = select(servers, facts, permissions)
    admitted, held_back = admit(candidates, state, limits, now)
    fired, over = budget(render(admitted, facts), tool_results or {}, limits)
    return Result(fired=tuple(fired), suppressed=(*suppressed, *held_back, *over))
