"""What evaluation produces: candidates, firings, suppressions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hooks.engine.compiled import CompiledHook, ServerHooks


@dataclass(frozen=True, slots=True)
class Suppression:
    server_id: str
    hook_id: str
    reason: str
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Candidate:
    """A hook that applies and may fire. ``render`` fills ``text`` (static
    context) or ``arguments`` (substituted ``context_tool_args``), only for
    the few candidates flood control admits."""

    hook: CompiledHook
    server: ServerHooks
    effective_priority: str
    downgraded: tuple[str, ...]
    # (-effective rank, server priority, server id, declaration index)
    sort_key: tuple[int, int, str, int]
    text: str | None = None
    arguments: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Fired:
    candidate: Candidate
    text: str
    source: str  # "context" | "context_tool"


@dataclass(frozen=True, slots=True)
class Result:
    fired: tuple[Fired, ...]
    suppressed: tuple[Suppression, ...]
