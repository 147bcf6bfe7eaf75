"""What a user is shown when asked for a scope, and its hash.

A grant stores the snapshot the user saw (``Grant.shown``) and a hash of its
declarations part (``Grant.declaration_hash``). The server's current
declarations hash to the same value until the server changes what it
declares; then the grant is suspended and the user is asked again.

Only what the server *declares* is hashed — not its name, trust or our own
wording — so cosmetic edits never suspend anyone's consent.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from consent.models import Scope
from switchboard.models import EventType, HookDeclaration, McpServer
from switchboard.patterns import pattern_in_words
from switchboard.selectors.mcp_targets import identity_for

# Plain-language names of the SEP-2282 lifecycle events.
HOOK_EVENT_WORDS: dict[str, str] = {
    "session_start": "when an agent session starts",
    "session_end": "when an agent session ends",
    "pre_tool_use": "before the assistant uses a tool",
    "post_tool_use": "after the assistant used a tool",
    "pre_request": "before the assistant works on each of your messages",
    "post_request": "after the assistant answered one of your messages",
}

PRIORITY_WORDS: dict[str, str] = {
    "suggestion": "a suggestion the assistant may ignore",
    "important": "something the assistant should take seriously",
    "required": "an instruction the assistant must follow",
}

# conversation/userMessage (the conversation-events SEP): what the server receives and returns.
CONVERSATION_DECLARATION = {
    "method": "conversation/userMessage",
    "receives": ["messageId", "content", "recentHistory"],
    "returns": ["context", "structuredContext.memories"],
}


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def snapshot_hash(shown: dict) -> str:
    """SHA-256 over the canonical JSON of the declarations part of a snapshot."""
    declared = shown.get("declarations", shown) if isinstance(shown, dict) else shown
    return hashlib.sha256(canonical_json(declared).encode()).hexdigest()


def _hook_entry(declaration: HookDeclaration) -> dict[str, Any]:
    return {"hook_id": declaration.hook_id, "declaration": declaration.raw}


def current_hooks(server: McpServer) -> list[HookDeclaration]:
    """The valid declarations the server makes now (only these can be approved)."""
    return list(
        HookDeclaration.objects.filter(server=server, removed_at__isnull=True, valid=True).order_by(
            "hook_id"
        )
    )


def current_event_types(server: McpServer, names: list[str] | None = None) -> list[EventType]:
    rows = EventType.objects.filter(server=server, removed_at__isnull=True)
    if names is not None:
        rows = rows.filter(name__in=names)
    return list(rows.order_by("name"))


def declarations_now(*, server: McpServer, scope: str, event_types: list[str] | None) -> dict:
    """The declarations part of a snapshot, as the server declares it now."""
    if scope == Scope.HOOKS:
        return {"hooks": [_hook_entry(d) for d in current_hooks(server)]}
    if scope == Scope.EVENTS:
        found: dict[str, Any] = {et.name: et for et in current_event_types(server, event_types)}
        names = sorted(event_types if event_types is not None else found)
        if (server.capabilities or {}).get("mcpe"):
            # An MCPE server lists no types: the user is shown each pattern in
            # plain words ("all github issue events"); the pattern is what is
            # approved (consent.selectors.events_grant_covering).
            return {
                "event_types": [
                    {
                        "name": name,
                        "declaration": found[name].raw
                        if name in found
                        else {"pattern": name, "description": pattern_in_words(name)},
                    }
                    for name in names
                ]
            }
        # A requested type the server no longer offers is recorded as null, so
        # its disappearance changes the hash.
        return {
            "event_types": [
                {"name": name, "declaration": found[name].raw if name in found else None}
                for name in names
            ]
        }
    return {"conversation": CONVERSATION_DECLARATION}


def scope_snapshot(
    *, server: McpServer, user_id: str, scope: str, event_types: list[str] | None = None
) -> dict:
    """Everything the consent page shows for one scope, with what is hashed
    under ``declarations``; ``server`` is where the data goes and under which
    credential names (``registration_shown``)."""
    return {
        "scope": scope,
        "identity": identity_for(user_id=user_id, server=server),
        "server": registration_shown(server),
        "declarations": declarations_now(server=server, scope=scope, event_types=event_types),
    }


def registration_shown(server: McpServer) -> dict[str, Any]:
    """The server's registration as a grant keeps it: its URL, the names (never
    the values) of the headers we send, and their hash
    (``McpServer.registration_hash``)."""
    return {
        "url": server.url,
        "header_names": server.header_names,
        "registration_hash": server.registration_hash,
    }


def snapshot_hook_ids(shown: dict) -> list[str]:
    return [h["hook_id"] for h in (shown.get("declarations") or {}).get("hooks", [])]


def snapshot_event_types(shown: dict) -> list[str]:
    return [
        e["name"]
        for e in (shown.get("declarations") or {}).get("event_types", [])
        if e.get("declaration") is not None
    ]


def snapshot_changes(before: dict, after: dict) -> dict[str, list[str]]:
    """What changed between two snapshots of one scope, for the page."""
    old_hooks, new_hooks = set(snapshot_hook_ids(before)), set(snapshot_hook_ids(after))
    old_types = {
        e["name"]: e.get("declaration")
        for e in (before.get("declarations") or {}).get("event_types", [])
    }
    new_types = {
        e["name"]: e.get("declaration")
        for e in (after.get("declarations") or {}).get("event_types", [])
    }
    return {
        "hooks_added": sorted(new_hooks - old_hooks),
        "hooks_removed": sorted(old_hooks - new_hooks),
        "event_types_changed": sorted(
            name
            for name in old_types.keys() | new_types.keys()
            if old_types.get(name) != new_types.get(name)
        ),
    }
