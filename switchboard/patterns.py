"""Event-type patterns and event filters (docs/host-integration.md §7, docs/events-client.md §10).

A pattern is an exact event name (``github.push``), a prefix wildcard
(``github.*``: ``github.push`` and ``github.issue.opened``, not ``github``
itself) or ``*`` (everything). Consent and subscriptions share these rules:

- ``pattern_matches``: does a pattern select an event name?
- ``pattern_covers``: does an approved pattern allow everything a requested
  one could select? (``github.*`` covers ``github.issue.*``, not the reverse.)
- ``Patterns``: many patterns compiled into an exact set and a prefix set, so
  matching costs a few set lookups (one per dot in the name), not a scan.
- ``EventFilter``: event types AND tags (any) AND priority, the filter a
  subscription carries; an event without a priority counts as ``normal``.

Pure Python, no Django: the hot receiving path and the consent page use it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

PRIORITIES = ("low", "normal", "high", "critical")
DEFAULT_PRIORITY = "normal"
MAX_PATTERN = 200
# Segments of letters, digits, `_`, `-`, `:`, `/` separated by dots; a final
# `*` segment makes it a prefix wildcard.
_SEGMENT = r"[A-Za-z0-9_\-:/]+"
_PATTERN = re.compile(rf"^(\*|{_SEGMENT}(\.{_SEGMENT})*(\.\*)?)$")


class PatternError(ValueError):
    """A pattern that is not an event name, ``name.*`` or ``*``."""


def pattern_check(pattern: str) -> str:
    if not isinstance(pattern, str) or not pattern:
        raise PatternError("must be a non-empty string")
    if len(pattern) > MAX_PATTERN:
        raise PatternError(f"must be at most {MAX_PATTERN} characters")
    if not _PATTERN.match(pattern):
        raise PatternError(
            "must be an event name, a name ending in `.*` (github.*) or `*` alone; "
            "`*` is allowed only as the last segment"
        )
    return pattern


def _prefix(pattern: str) -> str | None:
    """``github.`` for ``github.*``, ``""`` for ``*``, None for an exact name."""
    if pattern == "*":
        return ""
    if pattern.endswith(".*"):
        return pattern[:-1]
    return None


def pattern_matches(pattern: str, name: str) -> bool:
    prefix = _prefix(pattern)
    if prefix is None:
        return pattern == name
    return name.startswith(prefix) and len(name) > len(prefix)


def pattern_covers(approved: str, requested: str) -> bool:
    """Every name ``requested`` could select, ``approved`` selects too."""
    general, specific = _prefix(approved), _prefix(requested)
    if general is None:
        return approved == requested
    if specific is None:
        return pattern_matches(approved, requested)
    return specific.startswith(general)


def patterns_covered(requested: Iterable[str], approved: Iterable[str]) -> list[str]:
    """The requested patterns no approved one covers (empty: all covered)."""
    approved = list(approved)
    return [r for r in requested if not any(pattern_covers(a, r) for a in approved)]


def pattern_in_words(pattern: str) -> str:
    """How the consent page says it: ``github.issue.*`` → "all github issue events"."""
    if pattern == "*":
        return "all events"
    prefix = _prefix(pattern)
    if prefix is not None:
        return f"all {prefix[:-1].replace('.', ' ')} events"
    return f"{pattern} events"


class Patterns:
    """Patterns compiled for matching: ``matches(name)`` looks the name up in
    the exact set and each of its dotted prefixes in the prefix set."""

    __slots__ = ("_any", "_exact", "_prefixes")

    def __init__(self, patterns: Iterable[str]) -> None:
        self._exact: set[str] = set()
        self._prefixes: set[str] = set()
        self._any = False
        for pattern in patterns:
            prefix = _prefix(pattern)
            if prefix == "":
                self._any = True
            elif prefix is None:
                self._exact.add(pattern)
            else:
                self._prefixes.add(prefix)

    def matches(self, name: str) -> bool:
        if self._any or name in self._exact:
            return True
        if self._prefixes:
            end = name.find(".")
            while end != -1 and end < len(name) - 1:
                if name[: end + 1] in self._prefixes:
                    return True
                end = name.find(".", end + 1)
        return False


@dataclass(frozen=True)
class EventFilter:
    """A subscription's filter; empty fields do not filter."""

    event_types: tuple[str, ...] = ()
    tags: frozenset[str] = frozenset()
    priority: frozenset[str] = frozenset()

    @classmethod
    def from_json(cls, value: Mapping[str, Any] | None) -> EventFilter:
        """From a stored (already validated) filter."""
        value = value or {}
        return cls(
            event_types=tuple(value.get("event_types") or ()),
            tags=frozenset(value.get("tags") or ()),
            priority=frozenset(value.get("priority") or ()),
        )

    def __post_init__(self) -> None:
        object.__setattr__(self, "_types", Patterns(self.event_types))

    @property
    def empty(self) -> bool:
        return not (self.event_types or self.tags or self.priority)

    def matches(self, name: str, tags: Iterable[str] = (), priority: str | None = None) -> bool:
        if self.event_types and not self._types.matches(name):  # type: ignore[attr-defined]
            return False
        if self.tags and not self.tags.intersection(tags):
            return False
        return not self.priority or (priority or DEFAULT_PRIORITY) in self.priority

    def to_json(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        if self.event_types:
            out["event_types"] = list(self.event_types)
        if self.tags:
            out["tags"] = sorted(self.tags)
        if self.priority:
            out["priority"] = [p for p in PRIORITIES if p in self.priority]
        return out


def event_labels(occurrence: Mapping[str, Any]) -> tuple[list[str], str | None]:
    """An event's tags and priority: from ``metadata`` (MCPE events), else from
    ``data`` (MCP Events events carry no such fields in the envelope)."""
    for source in (occurrence.get("metadata"), occurrence.get("data")):
        if isinstance(source, Mapping) and ("tags" in source or "priority" in source):
            tags = source.get("tags")
            priority = source.get("priority")
            return (
                [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else [],
                priority if isinstance(priority, str) else None,
            )
    return [], None
