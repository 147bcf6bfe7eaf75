"""Steps 2 and 3: flood control. ``admit`` (cooldown per hook, rate limit
per session, hooks per event) and ``budget`` (characters per event and per
server, once every text is known)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hooks.engine.results import Candidate, Fired, Suppression


@dataclass(frozen=True, slots=True)
class Limits:
    max_hooks_per_event: int = 5
    max_chars_per_event: int = 4000
    max_chars_per_server: int = 2000
    cooldown: float = 60.0
    session_rate_limit: int = 30
    session_rate_window: float = 60.0


@dataclass(frozen=True, slots=True)
class FloodState:
    """A session's firing history: when each hook last fired, and the times
    of its recent firings (for the rate limit). Epoch seconds."""

    last_fired: Mapping[str, float] = field(default_factory=dict)
    recent: Sequence[float] = ()


def admit(
    candidates: Sequence[Candidate], state: FloodState, limits: Limits, now: float
) -> tuple[list[Candidate], list[Suppression]]:
    """Cooldown per hook, rate limit per session, cap on hooks per event, in
    the candidates' order (so the highest priority goes first)."""
    admitted: list[Candidate] = []
    suppressed: list[Suppression] = []
    rate_detail = {
        "limit": limits.session_rate_limit,
        "window_seconds": limits.session_rate_window,
    }
    cap_detail = {"limit": limits.max_hooks_per_event}
    window_start = now - limits.session_rate_window
    used = sum(1 for at in state.recent if at > window_start)
    room = max(limits.session_rate_limit - used, 0)
    for candidate in candidates:
        hook = candidate.hook
        last = state.last_fired.get(hook.hook_id)
        if last is not None and now - last < limits.cooldown:
            suppressed.append(
                Suppression(
                    hook.server_id,
                    hook.hook_id,
                    "cooldown",
                    {"retry_after": round(limits.cooldown - (now - last), 3)},
                )
            )
        elif room <= 0:
            suppressed.append(
                Suppression(hook.server_id, hook.hook_id, "session_rate_limit", rate_detail)
            )
        elif len(admitted) >= limits.max_hooks_per_event:
            suppressed.append(
                Suppression(hook.server_id, hook.hook_id, "event_hook_cap", cap_detail)
            )
        else:
            admitted.append(candidate)
            room -= 1
    return admitted, suppressed


@dataclass(frozen=True, slots=True)
class ToolFailure:
    """Why a ``context_tool`` gave no text (``reason`` is the suppression reason)."""

    reason: str
    detail: Mapping[str, Any] = field(default_factory=dict)


def budget(
    admitted: Sequence[Candidate],
    tool_results: Mapping[str, str | ToolFailure],
    limits: Limits,
) -> tuple[list[Fired], list[Suppression]]:
    """Fire what fits the character caps, in order. ``tool_results`` maps the
    hook id of every admitted ``context_tool`` hook to its text or failure."""
    fired: list[Fired] = []
    suppressed: list[Suppression] = []
    event_chars = 0
    server_chars: dict[str, int] = {}
    for candidate in admitted:
        hook = candidate.hook
        if candidate.text is not None:
            text, source = candidate.text, "context"
        else:
            outcome = tool_results.get(hook.hook_id)
            if outcome is None:
                outcome = ToolFailure("context_tool_error", {"message": "not called"})
            if isinstance(outcome, ToolFailure):
                suppressed.append(
                    Suppression(hook.server_id, hook.hook_id, outcome.reason, outcome.detail)
                )
                continue
            text, source = outcome, "context_tool"
        chars = len(text)
        if chars == 0:
            suppressed.append(Suppression(hook.server_id, hook.hook_id, "empty_context"))
            continue
        used_by_server = server_chars.get(hook.server_id, 0)
        if used_by_server + chars > limits.max_chars_per_server:
            suppressed.append(
                Suppression(
                    hook.server_id,
                    hook.hook_id,
                    "server_char_cap",
                    {"chars": chars, "used": used_by_server, "limit": limits.max_chars_per_server},
                )
            )
            continue
        if event_chars + chars > limits.max_chars_per_event:
            suppressed.append(
                Suppression(
                    hook.server_id,
                    hook.hook_id,
                    "event_char_cap",
                    {"chars": chars, "used": event_chars, "limit": limits.max_chars_per_event},
                )
            )
            continue
        server_chars[hook.server_id] = used_by_server + chars
        event_chars += chars
        fired.append(Fired(candidate, text, source))
    return fired, suppressed
