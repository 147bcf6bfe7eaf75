"""The query budget of a lifecycle event (ARCHITECTURE.md, *The hot path*), as a host's agent sends
one on every tool use: with no hook firing, the whole call is three
statements: the API key, the session with its user, the event's row. What
does not change between calls (server rows, compiled declarations) comes
from the process's cache; consent is never cached (tested beside)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from consent.services import grant_revoke
from switchboard.actors import Actor
from tests.hooks.conftest import BRIEF_HOOK, COMMIT_HOOK, approve, hooked_server

# A call that fires writes its event row with the records still to write;
# the firings, ledger entries and timeline entry follow from a worker.
BUDGET = 3  # key, session + user, event row


def _statements(captured) -> list[str]:
    """What the call asked of the database; transaction control (BEGIN and
    COMMIT in production, savepoints inside a test's transaction) aside."""
    return [
        q["sql"]
        for q in captured.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT"))
    ]


@pytest.fixture
def calls(personas, settings):
    settings.API_KEY_LAST_USED_RESOLUTION = 60
    server = hooked_server(personas.acme, [COMMIT_HOOK])

    def call(command: str, servers: list[str] | None = None, session: str = "agent-1"):
        answer = personas.acme_api.post(
            f"/sessions/{session}/lifecycle",
            {
                "user": "alice",
                "event": "post_tool_use",
                "servers": servers if servers is not None else [server.id],
                "tool_name": "Bash",
                "tool_input": {"command": command},
            },
        )
        assert answer.status_code == 200, answer.content
        return answer.json()

    call("ls")  # the session's first call claims it
    call.server = server  # type: ignore[attr-defined]
    return call


def test_a_tool_use_no_hook_applies_to_costs_three_statements(calls):
    with CaptureQueriesContext(connection) as captured:
        answer = calls("ls -la")
    assert answer["injections"] == []
    assert len(_statements(captured)) <= BUDGET, _statements(captured)


def test_without_the_server_list_it_costs_the_same(calls):
    with CaptureQueriesContext(connection) as captured:
        calls("ls -la", servers=[])
    assert len(_statements(captured)) <= BUDGET, _statements(captured)


def test_a_revoke_counts_for_the_very_next_call(personas, calls):
    grant = approve(personas.alice, calls.server, COMMIT_HOOK)
    assert len(calls("git commit -m 'a'")["injections"]) == 1
    grant_revoke(grant=grant, actor=Actor.for_user(personas.alice))
    # Another session: no cooldown stands in for the revoke.
    answer = calls("git commit -m 'b'", session="agent-2")
    assert answer["suppressed"][0]["reason"] == "no_consent", answer


def test_a_server_trusted_is_seen_by_the_very_next_call(personas, calls):
    approve(personas.alice, calls.server, COMMIT_HOOK)
    assert calls("git commit -m 'a'")["injections"][0]["trust"] == "untrusted"
    calls.server.trust = "trusted"
    calls.server.save(update_fields=["trust", "updated_at"])
    assert calls("git commit -m 'b'", session="agent-2")["injections"][0]["trust"] == "trusted"


# Key, session + user, the permissions (approvals, preferences and policy in
# one statement), the session locked, the event row, the session's flood state.
FIRING_BUDGET = 6


def test_a_firing_call_leaves_its_records_to_the_worker(personas, calls):
    approve(personas.alice, calls.server, COMMIT_HOOK)
    with CaptureQueriesContext(connection) as captured:
        answer = calls("git commit -m 'a'")
    assert len(answer["injections"]) == 1
    statements = _statements(captured)
    written = " ".join(s for s in statements if s.startswith(("INSERT", "UPDATE")))
    assert "switchboard_auditentry" not in written and "hooks_hookfiring" not in written
    assert len(statements) <= FIRING_BUDGET, "\n".join(s[:90] for s in statements)


# A context tool's hook: the firing's budget, and the consent read again
# after the tool step (a revoke or a mute that landed meanwhile wins); the
# server has no url, so no call leaves and nothing else is asked.
CONTEXT_TOOL_BUDGET = FIRING_BUDGET + 1


def test_a_context_tool_call_counts_the_consent_read_again(personas, calls):
    server = hooked_server(personas.acme, [BRIEF_HOOK], name="Briefs")
    approve(personas.alice, server, BRIEF_HOOK)
    start = {"user": "alice", "event": "session_start", "servers": [server.id]}
    assert personas.acme_api.post("/sessions/agent-3/lifecycle", start).status_code == 200
    with CaptureQueriesContext(connection) as captured:
        answer = personas.acme_api.post(
            "/sessions/agent-3/lifecycle", {**start, "project_name": "apollo"}
        )
    assert answer.status_code == 200, answer.content
    statements = _statements(captured)
    consent_reads = [s for s in statements if "hooks_hookpreference" in s]
    assert len(consent_reads) == 2, "\n".join(s[:90] for s in statements)
    assert len(statements) <= CONTEXT_TOOL_BUDGET, "\n".join(s[:90] for s in statements)
