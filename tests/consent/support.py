"""Servers with hooks, event types and conversation events, made through the
registry's own services (a host-managed server declares its capabilities)."""

from __future__ import annotations

import copy
from typing import Any

from django.db import connection

from consent.services import Decision, consent_request_create, consent_request_decide
from switchboard.services.server_discovery import snapshot_from_declared_capabilities
from switchboard.services.server_sync import server_apply_snapshot
from switchboard.services.servers import server_register
from tests.factories import SYSTEM

HOOKS = [
    {
        "event": "post_tool_use",
        "matcher": {"tool_name": "Bash", "input_contains": "git commit"},
        "context": "You just committed. Consider storing what you learned.",
        "priority": "suggestion",
    },
    {
        "event": "pre_tool_use",
        "matcher": {"tool_name": "Bash", "input_contains": "git push"},
        "context": "Run the tests before pushing.",
        "priority": "required",
    },
    {
        "event": "session_start",
        "context_tool": "project_brief",
        "context_tool_args": {"project_name": "{project_name}"},
        "priority": "important",
    },
]

EVENT_TYPES = [
    {"name": "build.finished", "description": "A CI build finished", "delivery": ["webhook"]},
    {"name": "issue.opened", "description": "Someone opened an issue", "delivery": ["poll"]},
]


def capabilities(*, hooks: list | None = None, event_types: list | None = None) -> dict[str, Any]:
    return {
        "conversationEvents": {"onUserMessage": True},
        "hooks": {"declarations": copy.deepcopy(HOOKS if hooks is None else hooks)},
        "events": {"delivery": ["webhook", "poll"]},
        "eventTypes": copy.deepcopy(EVENT_TYPES if event_types is None else event_types),
    }


def declaring_server(host, name: str = "Notes", **kwargs):
    """A host-managed server that declares hooks, event types and conversation events."""
    return server_register(host=host, name=name, actor=SYSTEM, capabilities=capabilities(**kwargs))


def redeclare(server, **kwargs):
    """The server now declares something else (as a re-sync would find)."""
    snapshot = snapshot_from_declared_capabilities(server.id, capabilities(**kwargs))
    return server_apply_snapshot(server=server, snapshot=snapshot, actor=SYSTEM)


def open_request(personas, server, scopes, user=None, **kwargs):
    request, _ = consent_request_create(
        host=personas.acme,
        user=user or personas.alice,
        server=server,
        scopes=scopes,
        actor=SYSTEM,
        **kwargs,
    )
    return request


def allow_all(
    request, *, remember: str = "forever", actor=SYSTEM, channel="browser", decided_by=None
):
    """Decide a request as "Allow all" would."""
    from consent.snapshots import snapshot_event_types, snapshot_hook_ids

    decisions = {
        g.id: Decision(
            allow=True,
            hook_ids=snapshot_hook_ids(g.shown),
            event_types=snapshot_event_types(g.shown),
            shown_hash=g.declaration_hash,
        )
        for g in request.grants.all()
    }
    return consent_request_decide(
        request=request,
        decisions=decisions,
        remember=remember,
        actor=actor,
        channel=channel,
        decided_by=decided_by,
    )


class ConsentStore:
    """The grant table renamed away and back, from connections of their own."""

    def __init__(self) -> None:
        self.away = False

    def take_away(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE consent_grant RENAME TO consent_grant_away")
        self.away = True

    def put_back(self) -> None:
        if self.away:
            with connection.cursor() as cursor:
                cursor.execute("ALTER TABLE consent_grant_away RENAME TO consent_grant")
            self.away = False
