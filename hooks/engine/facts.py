"""One lifecycle event, normalized, and the template variables it provides."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hooks.engine.compiled import TOOL_EVENTS

# Only the SEP's five variables are ever substituted, in one pass, so a value
# that itself contains "{session_id}" is never expanded again, and anything
# else in braces passes through untouched.
_VARIABLE = re.compile(r"\{(project_name|tool_name|tool_input|tool_output|session_id)\}")


@dataclass(frozen=True, slots=True)
class EventFacts:
    """What the host told us about one lifecycle event, normalized.

    ``tool_input``/``tool_output`` are already serialized (and capped).
    ``tool_servers`` holds every name the tool's server answers to (the
    value the host sent, and for one of our servers its id and name), so
    ``matcher.tool_server`` can name a server either way.
    """

    event: str
    session_id: str
    tool_name: str | None = None
    tool_input: str | None = None
    tool_output: str | None = None
    tool_servers: frozenset[str] = frozenset()
    project_name: str | None = None

    def variables(self) -> dict[str, str]:
        values = {
            "project_name": self.project_name,
            "tool_name": self.tool_name,
            "tool_input": self.tool_input,
            "tool_output": self.tool_output,
            "session_id": self.session_id,
        }
        return {key: value for key, value in values.items() if value is not None}


def serialize_tool_value(value: Any) -> str | None:
    """The serialized form matchers and templates see: strings as they are,
    anything else as compact JSON (what ``JSON.stringify`` produces), non-ASCII
    kept. Key order is the host's."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _capped(text: str | None, limit: int) -> tuple[str | None, int | None]:
    if text is None or len(text) <= limit:
        return text, None
    return text[:limit], len(text)


def event_facts(
    *,
    event: str,
    session_id: str,
    tool_name: str | None = None,
    tool_input: Any = None,
    tool_output: Any = None,
    tool_servers: Iterable[str] = (),
    project_name: str | None = None,
    max_io_chars: int = 65_536,
) -> tuple[EventFacts, list[dict[str, Any]]]:
    """Build ``EventFacts`` and the notices about what was cut.

    Tool fields only count on tool-use events, ``tool_output`` only on
    ``post_tool_use``; a serialized input or output longer than
    ``max_io_chars`` is cut to it (matchers and templates see the cut text)
    and a notice says so.
    """
    notices: list[dict[str, Any]] = []
    tool_event = event in TOOL_EVENTS
    serialized_input = serialize_tool_value(tool_input) if tool_event else None
    serialized_output = serialize_tool_value(tool_output) if event == "post_tool_use" else None
    serialized_input, input_size = _capped(serialized_input, max_io_chars)
    serialized_output, output_size = _capped(serialized_output, max_io_chars)
    for name, size in (("tool_input", input_size), ("tool_output", output_size)):
        if size is not None:
            notices.append(
                {"field": name, "reason": "truncated", "size": size, "limit": max_io_chars}
            )
    facts = EventFacts(
        event=event,
        session_id=session_id,
        tool_name=tool_name if tool_event else None,
        tool_input=serialized_input,
        tool_output=serialized_output,
        tool_servers=frozenset(name for name in tool_servers if name)
        if tool_event
        else frozenset(),
        project_name=project_name,
    )
    return facts, notices


def substitute(text: str, variables: Mapping[str, str]) -> str:
    """Replace the SEP's template variables that have a value; leave every
    other brace (unknown variables, variables without a value) as it is."""
    if "{" not in text:
        return text
    return _VARIABLE.sub(lambda m: variables.get(m.group(1), m.group(0)), text)


def substitute_args(value: Any, variables: Mapping[str, str]) -> Any:
    """``substitute`` over every string value of ``context_tool_args`` (keys untouched)."""
    if isinstance(value, str):
        return substitute(value, variables)
    if isinstance(value, Mapping):
        return {key: substitute_args(item, variables) for key, item in value.items()}
    if isinstance(value, list):
        return [substitute_args(item, variables) for item in value]
    return value
