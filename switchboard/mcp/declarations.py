"""SEP-2282 hook declarations: validation, identity, and what the client advertises.

Validation uses the SEP's own JSON Schema, copied verbatim into
``schemas/hooks_capability.schema.json`` (source: SEP-2282 "Server-Declared
Behavioural Hooks", section "JSON Schema",
https://github.com/modelcontextprotocol/modelcontextprotocol/pull/2282). Each declaration is checked
against ``#/properties/declarations/items``, plus one rule the SEP states in
prose but its schema misses: ``context_tool_args`` requires ``context_tool``.

Invalid declarations are kept (so the console can show them and their
problems) but flagged ``valid=False``; nothing may fire them.

``hook_id`` (the host API; docs/host-integration.md): ``f"{server_id}:{hex16}"`` where ``hex16`` is the
first 16 hex digits of SHA-256 over the declaration's canonical JSON: keys
sorted, separators ``,`` and ``:`` without spaces, non-ASCII kept as UTF-8
(``ensure_ascii=False``). The separator is a colon because server ids
(``srv_...``) never contain one, so ``hook_id.rpartition(":")`` splits it.
Any change to a declaration changes its id, which is what suspends consent.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from django.conf import settings
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

__all__ = [
    "HOOK_EVENTS",
    "Declaration",
    "canonical_json",
    "declarations_from_capability",
    "hook_id",
    "parse_declarations",
]

# The six normalized lifecycle events of SEP-2282 ("Event types" table).
# Switchboard supports all of them and advertises them as `supported_events`.
HOOK_EVENTS: tuple[str, ...] = (
    "session_start",
    "session_end",
    "pre_tool_use",
    "post_tool_use",
    "pre_request",
    "post_request",
)

_MAX_MESSAGE = 200


@dataclass(frozen=True)
class Declaration:
    """One hook declaration as served, with its verdict.

    ``raw`` is exactly what the server sent. The typed fields are read from
    it best-effort (None when absent or of the wrong type), so an invalid
    declaration can still be displayed. ``problems`` are human-readable,
    each starting with the JSON path inside the declaration (``$`` = root).
    """

    hook_id: str
    index: int
    raw: Any
    valid: bool
    problems: tuple[str, ...]
    event: str | None
    matcher: dict[str, Any] | None
    context: str | None
    context_tool: str | None
    context_tool_args: dict[str, Any] | None
    priority: str | None
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The host API's ``hook_declarations[]`` item shape."""
        out: dict[str, Any] = {
            "hook_id": self.hook_id,
            "event": self.event,
            "matcher": self.matcher,
            "priority": self.priority,
            "valid": self.valid,
            "problems": list(self.problems),
        }
        for key in ("context", "context_tool", "context_tool_args"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


@cache
def _schema() -> dict[str, Any]:
    text = resources.files("switchboard.mcp").joinpath("schemas/hooks_capability.schema.json")
    return json.loads(text.read_text(encoding="utf-8"))


@cache
def _validator() -> Draft202012Validator:
    item_schema = dict(_schema()["properties"]["declarations"]["items"])
    item_schema["$schema"] = _schema()["$schema"]
    Draft202012Validator.check_schema(item_schema)
    return Draft202012Validator(item_schema)


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def hook_id(*, server_id: str, declaration: Any) -> str:
    digest = hashlib.sha256(canonical_json(declaration).encode("utf-8")).hexdigest()
    return f"{server_id}:{digest[:16]}"


def _short(text: str) -> str:
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"


def _describe(error: ValidationError, instance: Any) -> str:
    path = error.json_path
    if error.validator == "oneOf" and isinstance(instance, dict) and path == "$":
        if "context" in instance and "context_tool" in instance:
            return "$: 'context' and 'context_tool' are mutually exclusive"
        return "$: one of 'context' or 'context_tool' is required"
    return f"{path}: {_short(error.message)}"


def _problems(declaration: Any) -> list[str]:
    problems = sorted({_describe(e, declaration) for e in _validator().iter_errors(declaration)})
    if (
        isinstance(declaration, dict)
        and "context_tool_args" in declaration
        and "context_tool" not in declaration
    ):
        problems.append("$.context_tool_args: requires 'context_tool' (SEP-2282)")
    return problems


def _typed(raw: Any, key: str, kind: type) -> Any:
    value = raw.get(key) if isinstance(raw, dict) else None
    return value if isinstance(value, kind) else None


_KNOWN = {"event", "matcher", "context", "context_tool", "context_tool_args", "priority"}


def parse_declarations(*, server_id: str, raw_list: Any) -> list[Declaration]:
    """Validate and identify every declaration in ``raw_list`` (order kept).

    A non-list ``raw_list`` yields no declarations: there is nothing to
    approve, and the capability itself is reported by the caller.
    """
    if not isinstance(raw_list, list):
        return []
    cap = settings.HOOK_MAX_DECLARATIONS
    parsed = []
    for index, raw in enumerate(raw_list):
        problems = _problems(raw)
        if index >= cap:
            # A server could declare thousands to flood the consent screen
            # or the evaluation: the first ``cap`` count, the rest are shown
            # with this problem and never fire.
            problems.append(
                f"over the limit of {cap} declarations per server (HOOK_MAX_DECLARATIONS): not used"
            )
        parsed.append(
            Declaration(
                hook_id=hook_id(server_id=server_id, declaration=raw),
                index=index,
                raw=raw,
                valid=not problems,
                problems=tuple(problems),
                event=_typed(raw, "event", str),
                matcher=_typed(raw, "matcher", dict),
                context=_typed(raw, "context", str),
                context_tool=_typed(raw, "context_tool", str),
                context_tool_args=_typed(raw, "context_tool_args", dict),
                priority=_typed(raw, "priority", str),
                extra={k: v for k, v in raw.items() if k not in _KNOWN}
                if isinstance(raw, dict)
                else {},
            )
        )
    return parsed


def declarations_from_capability(*, server_id: str, hooks: Any) -> list[Declaration]:
    """``parse_declarations`` over a ``hooks`` capability object (``{"declarations": [...]}``)."""
    raw_list = hooks.get("declarations") if isinstance(hooks, dict) else None
    return parse_declarations(server_id=server_id, raw_list=raw_list)
