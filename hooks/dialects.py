"""A host's own hook event names, mapped to the six normalized events.

Coding agents already fire hook events of their own; a host built on one
reports them as they are, with ``dialect``, instead of writing the mapping
itself. This module owns the table (the host guide shows it, and a test
holds the two equal). Names come from each agent's public hook reference:

- ``claude-code``: https://code.claude.com/docs/en/hooks
- ``codex``: https://developers.openai.com/codex/hooks
- ``gemini-cli``: https://geminicli.com/docs/hooks (and
  https://github.com/google-gemini/gemini-cli/blob/main/docs/hooks/index.md)

Why each row is what it is, where SEP-2282's draft table differs:

- A *turn* is a user message and the agent's answer to it, so the event that
  starts one (``UserPromptSubmit``, Gemini's ``BeforeAgent``) is
  ``pre_request`` and the one that ends it (``Stop``, ``AfterAgent``) is
  ``post_request``. The draft maps Gemini's ``BeforeAgent`` to
  ``session_start`` and Claude Code's ``Notification`` to ``post_request``;
  both agents' references say otherwise (``BeforeAgent`` fires after each
  prompt, ``Notification`` when the agent wants the user's attention).
- Gemini's ``BeforeModel`` and ``BeforeToolSelection`` fire before every
  model call, several per turn, not once before a tool runs or a turn
  starts: no twin (``BeforeTool`` is the tool's).
- Claude Code's ``PostToolUseFailure`` is a tool call that completed with an
  error, which ``post_tool_use`` covers (an MCP result with ``isError``).
- Events of subagents, compaction, permissions, notifications and the agent's
  own housekeeping have no normalized twin: Switchboard records them and
  fires nothing. So does a name the table does not know (a newer agent's
  event): it is recorded under its own name, never guessed at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Dialect = Literal["claude-code", "codex", "gemini-cli"]
DIALECTS: tuple[str, ...] = get_args(Dialect)

# Why a native event fired nothing (``native.reason`` in the answer).
NO_TWIN = "no_normalized_twin"
UNKNOWN = "unknown_event"

# dialect -> native name -> normalized event, or None: known, but no twin.
NATIVE_EVENTS: dict[str, dict[str, str | None]] = {
    "claude-code": {
        "SessionStart": "session_start",
        "SessionEnd": "session_end",
        "PreToolUse": "pre_tool_use",
        "PostToolUse": "post_tool_use",
        "PostToolUseFailure": "post_tool_use",
        "UserPromptSubmit": "pre_request",
        "Stop": "post_request",
        "Setup": None,
        "UserPromptExpansion": None,
        "PermissionRequest": None,
        "PermissionDenied": None,
        "PostToolBatch": None,
        "Notification": None,
        "SubagentStart": None,
        "SubagentStop": None,
        "StopFailure": None,
        "PreCompact": None,
        "PostCompact": None,
        "TeammateIdle": None,
        "TaskCreated": None,
        "TaskCompleted": None,
        "InstructionsLoaded": None,
        "ConfigChange": None,
        "CwdChanged": None,
        "FileChanged": None,
        "WorktreeCreate": None,
        "WorktreeRemove": None,
        "Elicitation": None,
        "ElicitationResult": None,
    },
    "codex": {
        "SessionStart": "session_start",
        "SessionEnd": "session_end",
        "PreToolUse": "pre_tool_use",
        "PostToolUse": "post_tool_use",
        "UserPromptSubmit": "pre_request",
        "Stop": "post_request",
        "PermissionRequest": None,
        "PreCompact": None,
        "PostCompact": None,
        "SubagentStart": None,
        "SubagentStop": None,
    },
    "gemini-cli": {
        "SessionStart": "session_start",
        "SessionEnd": "session_end",
        "BeforeTool": "pre_tool_use",
        "AfterTool": "post_tool_use",
        "BeforeAgent": "pre_request",
        "AfterAgent": "post_request",
        "BeforeModel": None,
        "AfterModel": None,
        "BeforeToolSelection": None,
        "PreCompress": None,
        "Notification": None,
    },
}


@dataclass(frozen=True, slots=True)
class NativeEvent:
    """One native event name, read in its dialect: its normalized twin, or
    why it has none."""

    dialect: str
    name: str
    normalized: str | None
    reason: str | None

    def as_dict(self) -> dict[str, str | None]:
        return {
            "dialect": self.dialect,
            "event": self.name,
            "normalized": self.normalized,
            "reason": self.reason,
        }


def native_event_read(*, dialect: str, name: str) -> NativeEvent:
    """``name`` in ``dialect`` (one of ``DIALECTS``: the API's schema holds
    that). Names are matched exactly, as the agents send them."""
    table = NATIVE_EVENTS[dialect]
    if name not in table:
        return NativeEvent(dialect=dialect, name=name, normalized=None, reason=UNKNOWN)
    normalized = table[name]
    return NativeEvent(
        dialect=dialect,
        name=name,
        normalized=normalized,
        reason=None if normalized else NO_TWIN,
    )
