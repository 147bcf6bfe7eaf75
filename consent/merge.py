"""Merging what servers returned for one user message (pure functions).

1. Check each answer: a ``context`` string and/or ``structuredContext.memories``;
   anything larger than CONVERSATION_REPLY_MAX_CHARS is an error, not trimmed
   (a server flooding us is not given the benefit of the doubt).
2. Order: servers by priority (lower first); within a server its plain
   context, then its memories by relevance (highest first).
3. Cap: per server and per message (the host's policy); the piece that
   crosses a cap is cut and marked ``truncated``; a server that gets no room
   at all is skipped as ``over_budget``.
4. Wrap every piece in an ``<external-context>`` element naming its source,
   so the host can present it as external, untrusted context. Look-alike tags
   inside the text are defused so a server cannot close the wrapper early.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

MAX_MEMORIES = 200
MAX_SOURCE_CHARS = 200
_TAG = re.compile(r"<(\s*/?\s*external-context)", re.IGNORECASE)


class ReplyRejected(Exception):
    """The server answered, but not something we pass on."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Piece:
    text: str
    source: str
    relevance: float | None = None
    kind: str = "context"  # "context" | "memory"


@dataclass(frozen=True)
class Reply:
    pieces: tuple[Piece, ...]
    raw_chars: int


@dataclass(frozen=True)
class Answer:
    """One server's in-budget answer, with what merging needs to know of the server."""

    server_id: str
    server_name: str
    trusted: bool
    priority: int
    reply: Reply
    latency_ms: int


@dataclass
class Contribution:
    server_id: str
    server_name: str
    trusted: bool
    latency_ms: int
    pieces: list[Piece] = field(default_factory=list)
    chars: int = 0
    truncated: bool = False

    @property
    def context(self) -> str | None:
        texts = [p.text for p in self.pieces if p.kind == "context"]
        return "\n\n".join(texts) if texts else None

    @property
    def structured_context(self) -> dict[str, Any] | None:
        memories = [
            {"content": p.text, "relevance": p.relevance, "source": p.source}
            for p in self.pieces
            if p.kind == "memory"
        ]
        return {"memories": memories} if memories else None

    @property
    def text(self) -> str:
        """What was injected from this server, as kept in the injection record."""
        return "\n\n".join(p.text for p in self.pieces)


@dataclass
class Merged:
    context: str
    contributions: list[Contribution]
    over_budget: list[str]  # server ids that got no room


def reply_from_result(result: Any, *, max_chars: int) -> Reply:
    """Check a ``conversation/userMessage`` result (``wire.UserMessageResult``
    or a plain dict) and turn it into pieces."""
    if hasattr(result, "model_dump"):
        result = result.model_dump(by_alias=True, mode="json")
    if not isinstance(result, dict):
        raise ReplyRejected("malformed")
    context = result.get("context")
    structured = result.get("structuredContext", result.get("structured_context"))
    if context is not None and not isinstance(context, str):
        raise ReplyRejected("malformed")
    memories: list[Any] = []
    if structured is not None:
        if not isinstance(structured, dict):
            raise ReplyRejected("malformed")
        memories = structured.get("memories") or []
        if not isinstance(memories, list):
            raise ReplyRejected("malformed")
    if len(memories) > MAX_MEMORIES:
        raise ReplyRejected("oversized")
    pieces: list[Piece] = []
    raw = len(context or "")
    if raw > max_chars:
        raise ReplyRejected("oversized")
    if context:
        pieces.append(Piece(text=context, source="context"))
    ranked = []
    for index, memory in enumerate(memories):
        if not isinstance(memory, dict) or not isinstance(memory.get("content"), str):
            raise ReplyRejected("malformed")
        relevance = memory.get("relevance")
        if isinstance(relevance, bool) or not isinstance(relevance, int | float | None):
            raise ReplyRejected("malformed")
        if relevance is not None and not math.isfinite(relevance):
            relevance = None
        source = memory.get("source")
        source = source[:MAX_SOURCE_CHARS] if isinstance(source, str) and source else "memory"
        raw += len(memory["content"])
        if raw > max_chars:
            raise ReplyRejected("oversized")
        if memory["content"]:
            ranked.append(
                (-(relevance if relevance is not None else 0.0), index, memory, relevance, source)
            )
    ranked.sort(key=lambda row: (row[0], row[1]))
    for _, _, memory, relevance, source in ranked:
        pieces.append(
            Piece(text=memory["content"], source=source, relevance=relevance, kind="memory")
        )
    return Reply(pieces=tuple(pieces), raw_chars=raw)


def _attr(value: str) -> str:
    return (
        value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    )


def wrap(piece: Piece, contribution: Contribution) -> str:
    trust = "trusted" if contribution.trusted else "untrusted"
    body = _TAG.sub(r"&lt;\1", piece.text)
    return (
        f'<external-context server="{_attr(contribution.server_name)}" '
        f'server_id="{_attr(contribution.server_id)}" source="{_attr(piece.source)}" '
        f'trust="{trust}">\n{body}\n</external-context>'
    )


def merge(answers: list[Answer], *, per_server: int, per_message: int) -> Merged:
    ordered = sorted(answers, key=lambda a: (a.priority, a.server_name, a.server_id))
    left = per_message
    contributions: list[Contribution] = []
    over_budget: list[str] = []
    for answer in ordered:
        room = min(per_server, left)
        contribution = Contribution(
            server_id=answer.server_id,
            server_name=answer.server_name,
            trusted=answer.trusted,
            latency_ms=answer.latency_ms,
        )
        if answer.reply.pieces and room <= 0:
            over_budget.append(answer.server_id)
            continue
        for piece in answer.reply.pieces:
            if room <= 0:
                contribution.truncated = True
                break
            if len(piece.text) > room:
                piece = Piece(piece.text[:room], piece.source, piece.relevance, piece.kind)
                contribution.truncated = True
            contribution.pieces.append(piece)
            contribution.chars += len(piece.text)
            room -= len(piece.text)
            left -= len(piece.text)
        contributions.append(contribution)
    context = "\n\n".join(wrap(p, c) for c in contributions for p in c.pieces)
    return Merged(context=context, contributions=contributions, over_budget=over_budget)
