"""Helpers for the hooks tests: servers with declarations, approvals."""

from __future__ import annotations

import pytest

from switchboard.models import HookDeclaration, McpServer
from tests.factories import SYSTEM, make_server

COMMIT_HOOK = {
    "event": "post_tool_use",
    "matcher": {"tool_name": "Bash", "input_contains": "git commit"},
    "context": "You just committed work. What did you learn?",
    "priority": "suggestion",
}
PUSH_HOOK = {
    "event": "pre_tool_use",
    "matcher": {"tool_name": "Bash", "input_contains": "git push"},
    "context": "Run the tests before pushing.",
    "priority": "required",
}
START_HOOK = {
    "event": "session_start",
    "context": "Working on {project_name} in session {session_id}; {unknown} stays.",
    "priority": "important",
}
BRIEF_HOOK = {
    "event": "session_start",
    "context_tool": "project_brief",
    "context_tool_args": {"project_name": "{project_name}"},
    "priority": "important",
}
BROKEN_HOOK = {"event": "post_tool_use", "context": "x", "priority": "urgent"}


def hooked_server(host, declarations, *, name="Hooky", trust="untrusted", url="") -> McpServer:
    """A server whose declarations went through the registry's own sync path."""
    from switchboard.mcp import parse_declarations
    from switchboard.services.server_discovery import ServerSnapshot
    from switchboard.services.server_sync import server_apply_snapshot

    server = make_server(host, name, url)
    server.trust = trust
    server.save(update_fields=["trust", "updated_at"])
    snapshot = ServerSnapshot(
        capabilities={"hooks": {"declarations": declarations}},
        sources={"hooks": "toplevel"},
        declarations=parse_declarations(server_id=server.id, raw_list=declarations),
    )
    return server_apply_snapshot(server=server, snapshot=snapshot, actor=SYSTEM)


def hook_id_of(server, raw) -> str:
    return HookDeclaration.objects.get(server=server, raw=raw).hook_id


def approve(user, server, *raws):
    from consent.services import grant_approve, grant_request

    grant = grant_request(user=user, server=server, scope="hooks", actor=SYSTEM)
    return grant_approve(
        grant=grant, actor=SYSTEM, hook_ids=[hook_id_of(server, raw) for raw in raws]
    )


@pytest.fixture(autouse=True)
def _fresh_compiled_cache():
    from hooks.selectors import compiled_hooks_clear

    compiled_hooks_clear()
    yield
    compiled_hooks_clear()
