"""`conversation/userMessage` (the conversation-events SEP) and the hooks capability holder.

The reply is derived from the message text by keyword lookup in a tiny
built-in memory bank, so a client test can predict it; every message is
recorded for `GET /control/received`. Slowness and failure are injected by
the behaviour middleware (`POST /control/behaviour`), not here.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server import ServerRequestContext
from mcp.server.mcpserver import Extension, MethodBinding
from pydantic import BaseModel

from refserver import requestinfo
from refserver.hooks import HOOKS_EXTENSION_ID
from refserver.state import State

CONVERSATION_EXTENSION_ID = "io.modelcontextprotocol/conversation-events"

MEMORY_BANK: dict[str, tuple[str, float]] = {
    "database": ("The team chose PostgreSQL 16; the schema lives in db/schema.sql.", 0.92),
    "schema": ("Schema changes go through a migration reviewed by two people.", 0.85),
    "deploy": ("Deploys run from main through the release pipeline every weekday at 10:00.", 0.8),
    "tea": ("The user likes green tea.", 0.7),
    "test": ("The test suite runs with `pytest -q`; integration tests need Docker.", 0.75),
}


class HistoryItem(BaseModel):
    role: str
    content: str


class UserMessageParams(types.RequestParams):
    message_id: str
    content: str
    recent_history: list[HistoryItem] | None = None


def memories_for(content: str) -> list[dict[str, Any]]:
    lowered = content.lower()
    found = [
        {"content": text, "relevance": relevance, "source": f"memory-bank:{keyword}"}
        for keyword, (text, relevance) in MEMORY_BANK.items()
        if keyword in lowered
    ]
    # Always one echo-derived memory, so every reply is non-empty and traceable.
    found.append(
        {"content": f"The user said: {content[:120]}", "relevance": 0.5, "source": "refserver"}
    )
    return found


class ConversationExtension(Extension):
    identifier = CONVERSATION_EXTENSION_ID

    def __init__(self, state: State) -> None:
        self.state = state

    def settings(self) -> dict[str, Any]:
        return dict(self.state.capabilities.conversation_events)

    def methods(self) -> list[MethodBinding]:
        return [MethodBinding("conversation/userMessage", UserMessageParams, self.user_message)]

    async def user_message(
        self, ctx: ServerRequestContext[Any, Any], params: UserMessageParams
    ) -> dict[str, Any]:
        self.state.record(
            "userMessages",
            {
                "principal": requestinfo.principal(ctx),
                "messageId": params.message_id,
                "content": params.content,
                "recentHistory": [h.model_dump() for h in params.recent_history or []],
                "meta": requestinfo.raw_meta(ctx),
            },
        )
        memories = memories_for(params.content)
        context = f"[refserver] Context for message {params.message_id}: " + " ".join(
            m["content"] for m in memories
        )
        return {"context": context, "structuredContext": {"memories": memories}}


class HooksExtension(Extension):
    """No methods: hooks are a capability only. Settings are reshaped per request
    by the capabilities middleware (client filter, control overrides)."""

    identifier = HOOKS_EXTENSION_ID

    def __init__(self, state: State) -> None:
        self.state = state

    def settings(self) -> dict[str, Any]:
        return {"declarations": list(self.state.capabilities.declarations)}
