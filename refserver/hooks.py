"""SEP-2282 hook declarations and the client-advertised event filter.

The defaults cover the shapes a client must handle: a static `context`
behind a `post_tool_use` matcher, a `required` hook (which a client may
downgrade for untrusted servers), and a `session_start` hook that names a
tool of this server (`project_brief`) with a `{project_name}` template.
The control surface can replace them with anything, including invalid
declarations, so a client's validation and re-sync can be tested.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

HOOKS_EXTENSION_ID = "io.modelcontextprotocol/hooks"

DEFAULT_DECLARATIONS: list[dict[str, Any]] = [
    {
        "event": "post_tool_use",
        "matcher": {"tool_name": "Bash", "input_contains": "git commit"},
        "context": (
            "You just committed work. Before moving on: what did you learn during this task "
            "that would be valuable in a future session? Consider storing it."
        ),
        "priority": "suggestion",
    },
    {
        "event": "pre_tool_use",
        "matcher": {"tool_name": "Bash", "input_contains": "git push"},
        "context": "Run the test suite before pushing; pushes to main require a green build.",
        "priority": "required",
    },
    {
        "event": "session_start",
        "context_tool": "project_brief",
        "context_tool_args": {"project_name": "{project_name}"},
        "priority": "important",
    },
    {
        "event": "session_end",
        "context": "This session is ending. Store any root causes or patterns you discovered.",
        "priority": "suggestion",
    },
]


def default_declarations() -> list[dict[str, Any]]:
    return copy.deepcopy(DEFAULT_DECLARATIONS)


def supported_events(client_capabilities: Mapping[str, Any] | None) -> list[str] | None:
    """The `supported_events` a client advertised, or None if it said nothing.

    Looked up, first hit wins, in `extensions["io.modelcontextprotocol/hooks"]`,
    `experimental["hooks"]`, then a top-level `hooks` (SEP-2282's own shape).
    """
    if not isinstance(client_capabilities, Mapping):
        return None
    candidates: list[Any] = []
    extensions = client_capabilities.get("extensions")
    if isinstance(extensions, Mapping):
        candidates.append(extensions.get(HOOKS_EXTENSION_ID))
    experimental = client_capabilities.get("experimental")
    if isinstance(experimental, Mapping):
        candidates.append(experimental.get("hooks"))
    candidates.append(client_capabilities.get("hooks"))
    for candidate in candidates:
        if isinstance(candidate, Mapping):
            events = candidate.get("supported_events", candidate.get("supportedEvents"))
            if isinstance(events, list):
                return [e for e in events if isinstance(e, str)]
    return None


def filter_declarations(declarations: list[Any], supported: list[str] | None) -> list[Any]:
    """Drop declarations for events the client said it does not support.

    Declarations whose `event` is missing or not a string are kept: they are
    invalid, and the point of serving them is that the client sees them.
    """
    if supported is None:
        return copy.deepcopy(declarations)
    kept = []
    for declaration in declarations:
        event = declaration.get("event") if isinstance(declaration, Mapping) else None
        if isinstance(event, str) and event not in supported:
            continue
        kept.append(copy.deepcopy(declaration))
    return kept
