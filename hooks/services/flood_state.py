"""A session's flood state: step 7 of ``lifecycle_event_handle``.

The engine admits against the session's firing history twice: once outside
any lock (step 4), and again here, in the record's transaction with the
session row locked, because a concurrent event may have fired the same hook
meanwhile. The limits are the ``HOOK_*`` settings.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime

from django.conf import settings

from hooks import engine
from hooks.engine import Fired, Suppression
from hooks.models import LifecycleSession
from hooks.services.lifecycle_data import Evaluation


def limits_from_settings() -> engine.Limits:
    return engine.Limits(
        max_hooks_per_event=settings.HOOK_MAX_PER_EVENT,
        max_chars_per_event=settings.HOOK_MAX_CHARS_PER_EVENT,
        max_chars_per_server=settings.HOOK_MAX_CHARS_PER_SERVER,
        cooldown=settings.HOOK_COOLDOWN,
        session_rate_limit=settings.HOOK_SESSION_RATE_LIMIT,
        session_rate_window=settings.HOOK_SESSION_RATE_WINDOW,
    )


def flood_state_apply(
    session: LifecycleSession,
    evaluation: Evaluation,
    limits: engine.Limits,
    *,
    moment: datetime,
) -> tuple[LifecycleSession, list[Fired], list[Suppression]]:
    """Step 7, inside the record's transaction: admit again against the
    session's flood state read under its lock (a concurrent call may have
    fired meanwhile), apply the character caps, and save the new state.
    With nothing admitted there is nothing to decide and nothing to write
    but, now and then, the session's last event time. Returns what fired
    and what the second pass held back, with the session as read."""
    if evaluation.admitted:
        session = LifecycleSession.objects.select_for_update(no_key=True).get(pk=session.pk)
    now = time.time()
    fresh = engine.FloodState(session.last_fired, session.recent_firings)
    admitted, late = engine.admit(evaluation.admitted, fresh, limits, now)
    fired, over = engine.budget(admitted, evaluation.tool_results, limits)
    if admitted:
        last_fired = dict(session.last_fired)
        for f in fired:
            last_fired[f.candidate.hook.hook_id] = now
        # Cooldowns that ran out are forgotten, so the map stays small.
        session.last_fired = {k: v for k, v in last_fired.items() if now - v < limits.cooldown}
        session.recent_firings = _prune(
            [*session.recent_firings, *([now] * len(fired))], now, limits.session_rate_window
        )
        session.last_event_at = moment
        session.save(update_fields=["last_fired", "recent_firings", "last_event_at", "updated_at"])
    elif _touch_due(session, moment):
        # Not locked: only this column, so a concurrent firing's flood
        # state is never overwritten.
        LifecycleSession.objects.filter(pk=session.pk).update(
            last_event_at=moment, updated_at=moment
        )
    return session, fired, [*late, *over]


def flood_state_writes(session: LifecycleSession, evaluation: Evaluation, moment: datetime) -> bool:
    """Whether ``flood_state_apply`` may write (and so needs the record's
    transaction): when something was admitted, or the session's last event
    time is due. Most events that fire nothing write only their own row."""
    return bool(evaluation.admitted) or _touch_due(session, moment)


def _touch_due(session: LifecycleSession, moment: datetime) -> bool:
    """A session's last event time is kept to LIFECYCLE_SESSION_TOUCH (for
    the lists that sort by it): most calls that fire nothing write nothing
    to the session."""
    last = session.last_event_at
    return last is None or (moment - last).total_seconds() >= settings.LIFECYCLE_SESSION_TOUCH


def _prune(recent: Sequence[float], now: float, window: float) -> list[float]:
    return [at for at in recent if at > now - window]
