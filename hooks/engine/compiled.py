"""Declarations compiled for evaluation: matchers precompiled, hooks
bucketed by event and by literal tool name."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from switchboard.mcp.declarations import HOOK_EVENTS

if TYPE_CHECKING:
    from hooks.engine.facts import EventFacts

TOOL_EVENTS = frozenset({"pre_tool_use", "post_tool_use"})
_GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True, slots=True)
class CompiledHook:
    """One valid declaration, ready to evaluate. ``index`` is its position in
    the server's declarations (the tie-breaker that keeps order stable)."""

    server_id: str
    hook_id: str
    event: str
    index: int
    priority: str
    tool_name: str | None = None
    tool_name_glob: re.Pattern[str] | None = None
    input_contains: str | None = None
    tool_server: str | None = None
    context: str | None = None
    context_tool: str | None = None
    context_tool_args: Mapping[str, Any] | None = None
    # Tool-use matchers on other events are ignored (SEP-2282: "only
    # applicable to pre_tool_use and post_tool_use").
    matcher_ignored: bool = False

    def matches(self, facts: EventFacts) -> bool:
        """The matcher conditions, ANDed. Callers only ask on tool-use events."""
        if self.tool_name is not None:
            if facts.tool_name is None:
                return False
            if self.tool_name_glob is not None:
                if self.tool_name_glob.match(facts.tool_name) is None:
                    return False
            elif facts.tool_name != self.tool_name:
                return False
        if self.input_contains is not None and (
            facts.tool_input is None or self.input_contains not in facts.tool_input
        ):
            return False
        return self.tool_server is None or self.tool_server in facts.tool_servers


@dataclass(frozen=True, slots=True)
class _Bucket:
    """A server's hooks for one event, pre-sorted for matching: hooks whose
    ``tool_name`` is a literal are looked up by name; globs and hooks without
    a tool name are checked one by one."""

    by_tool: Mapping[str, tuple[CompiledHook, ...]]
    scan: tuple[CompiledHook, ...]
    every: tuple[CompiledHook, ...]  # non-tool events: all of them


@dataclass(frozen=True, slots=True)
class ServerHooks:
    server_id: str
    name: str
    trusted: bool
    priority: int
    buckets: Mapping[str, _Bucket]

    def hooks_for(self, facts: EventFacts) -> Sequence[CompiledHook]:
        bucket = self.buckets.get(facts.event)
        if bucket is None:
            return ()
        if facts.event not in TOOL_EVENTS:
            return bucket.every
        exact = bucket.by_tool.get(facts.tool_name, ()) if facts.tool_name is not None else ()
        return [hook for hook in (*exact, *bucket.scan) if hook.matches(facts)]


def _compile_one(server_id: str, hook_id: str, index: int, raw: Mapping[str, Any]) -> CompiledHook:
    event = raw["event"]
    matcher = raw.get("matcher") or {}
    tool_event = event in TOOL_EVENTS
    tool_name = matcher.get("tool_name") if tool_event else None
    glob = None
    if tool_name is not None and _GLOB_CHARS.search(tool_name):
        # fnmatch's translation, case-sensitive (tool names are identifiers).
        glob = re.compile(fnmatch.translate(tool_name))
    return CompiledHook(
        server_id=server_id,
        hook_id=hook_id,
        event=event,
        index=index,
        priority=raw["priority"],
        tool_name=tool_name,
        tool_name_glob=glob,
        input_contains=matcher.get("input_contains") if tool_event else None,
        tool_server=matcher.get("tool_server") if tool_event else None,
        context=raw.get("context"),
        context_tool=raw.get("context_tool"),
        context_tool_args=raw.get("context_tool_args"),
        matcher_ignored=bool(matcher) and not tool_event,
    )


def compile_server(
    *,
    server_id: str,
    name: str,
    trusted: bool,
    priority: int,
    declarations: Iterable[tuple[str, Any, bool]],
) -> ServerHooks:
    """Compile ``(hook_id, raw, valid)`` declarations. Invalid ones are left
    out: they never fire (the pages show them, with their problems)."""
    grouped: dict[str, list[CompiledHook]] = {}
    for index, (hook_id, raw, valid) in enumerate(declarations):
        if not valid or not isinstance(raw, Mapping) or raw.get("event") not in HOOK_EVENTS:
            continue
        hook = _compile_one(server_id, hook_id, index, raw)
        grouped.setdefault(hook.event, []).append(hook)
    buckets = {}
    for event, hooks in grouped.items():
        by_tool: dict[str, list[CompiledHook]] = {}
        scan = []
        for hook in hooks:
            if hook.tool_name is not None and hook.tool_name_glob is None:
                by_tool.setdefault(hook.tool_name, []).append(hook)
            else:
                scan.append(hook)
        buckets[event] = _Bucket(
            by_tool={name: tuple(items) for name, items in by_tool.items()},
            scan=tuple(scan),
            every=tuple(hooks),
        )
    return ServerHooks(
        server_id=server_id, name=name, trusted=trusted, priority=priority, buckets=buckets
    )
