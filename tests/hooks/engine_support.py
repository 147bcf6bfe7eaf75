"""What the pure evaluation engine's tests (``test_engine_*.py``) share:
servers compiled from declarations, approvals of every hook, an event's
facts, one evaluation, and what it fired or suppressed."""

from __future__ import annotations

from hooks.engine import FloodState, Limits, Permissions, compile_server, evaluate, event_facts

NOW = 1_000_000.0


def server(declarations, *, sid="srv_a", name="alpha", trusted=False, priority=100, valid=True):
    rows = [(f"{sid}:{i:016x}", raw, valid) for i, raw in enumerate(declarations)]
    return compile_server(
        server_id=sid, name=name, trusted=trusted, priority=priority, declarations=rows
    )


def approve_all(*servers, as_required=False, **extra):
    approved = {
        s.server_id: frozenset(h.hook_id for b in s.buckets.values() for h in b.every)
        for s in servers
    }
    return Permissions(
        approved=approved, approved_as_required=approved if as_required else {}, **extra
    )


def facts(event="post_tool_use", **kwargs):
    kwargs.setdefault("session_id", "sess-1")
    built, _ = event_facts(event=event, **kwargs)
    return built


def run(servers, f, permissions=None, state=None, limits=None, now=NOW, tool_results=None):
    servers = servers if isinstance(servers, list) else [servers]
    return evaluate(
        servers,
        f,
        permissions or approve_all(*servers),
        state or FloodState(),
        limits or Limits(),
        now,
        tool_results,
    )


def fired_texts(result):
    return [f.text for f in result.fired]


def reasons(result):
    return [s.reason for s in result.suppressed]


START_HOOK_TEXT = {"event": "session_start", "context": "", "priority": "suggestion"}
COMMIT = {
    "event": "post_tool_use",
    "matcher": {"tool_name": "Bash", "input_contains": "git commit"},
    "context": "You just committed.",
    "priority": "suggestion",
}
