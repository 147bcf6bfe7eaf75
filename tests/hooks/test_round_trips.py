"""Round trips to PostgreSQL on the hot path (ARCHITECTURE.md, *The hot
path*), counted from libpq's protocol trace, so the transaction's BEGIN and
COMMIT count too (``tests/hooks/test_query_budget.py`` counts statements,
inside a test's transaction, on both databases). Outside a test
transaction, as in production; the pool's check when it hands a connection
out is ``tests/core/test_db_pool_check.py``'s."""

from __future__ import annotations

import pytest

from consent.enforce import outbound_check
from consent.models import Scope
from tests.hooks.conftest import BRIEF_HOOK, COMMIT_HOOK, approve, hooked_server
from tests.pg import postgresql_only, round_trips

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def calls(tpersonas, settings):
    postgresql_only("counts PostgreSQL's round trips")
    settings.API_KEY_LAST_USED_RESOLUTION = 60  # the key's last use: written already
    server = hooked_server(tpersonas.acme, [COMMIT_HOOK, BRIEF_HOOK])

    def call(command: str, session: str = "agent-1", event: str = "post_tool_use"):
        answer = tpersonas.acme_api.post(
            f"/sessions/{session}/lifecycle",
            {
                "user": "alice",
                "event": event,
                "servers": [server.id],
                "tool_name": "Bash",
                "tool_input": {"command": command},
                "project_name": "apollo",
            },
        )
        assert answer.status_code == 200, answer.content
        return answer.json()

    call("ls")  # the session's first call claims it (and writes its last event time)
    call.server = server  # type: ignore[attr-defined]
    return call


def test_an_authenticated_get_is_two_round_trips(tpersonas, calls):
    with round_trips() as trips:
        assert tpersonas.acme_api.get("/users/alice").status_code == 200
    assert len(trips) == 2, trips  # the key, the user


def test_an_event_that_fires_nothing_is_three_round_trips_without_a_transaction(calls):
    with round_trips() as trips:
        assert calls("ls -la")["injections"] == []
    # The key, the session with its user, the event's row (alone, in
    # autocommit: it is the only write).
    assert len(trips) == 3, trips
    assert not [t for t in trips if t in ("BEGIN", "COMMIT")], trips


def test_an_event_that_fires_reads_its_permissions_once(tpersonas, calls):
    approve(tpersonas.alice, calls.server, COMMIT_HOOK)
    with round_trips() as trips:
        assert len(calls("git commit -m 'a'")["injections"]) == 1
    # The key, the session, the permissions (one statement), then BEGIN,
    # the session locked, the flood state written, the event's row, COMMIT.
    assert len(trips) == 8, trips
    assert trips.count("BEGIN") == 1 and trips.count("COMMIT") == 1, trips


def test_a_context_tool_event_counts_the_consent_read_again(tpersonas, calls):
    # The server has no url: the host reaches it itself, so no MCP call
    # leaves; consent is read again after the tool step all the same.
    approve(tpersonas.alice, calls.server, BRIEF_HOOK)
    with round_trips() as trips:
        calls("", session="agent-2", event="session_start")
    permissions = [t for t in trips if "hooks_hookpreference" in t]
    assert len(permissions) == 2, trips  # before the engine, and again after the tool step


def test_the_consent_check_is_one_round_trip(tpersonas, calls):
    grant = approve(tpersonas.alice, calls.server, COMMIT_HOOK)
    with round_trips() as trips:
        assert outbound_check(grant_id=grant.pk).allowed
        assert outbound_check(
            user_id=tpersonas.alice.id, server_id=calls.server.id, scope=Scope.HOOKS
        ).allowed
    # Each: the grant read with the lock a revoke takes, alone in
    # autocommit, no BEGIN and COMMIT around it.
    assert len(trips) == 2, trips
    assert all("FOR NO KEY UPDATE" in t for t in trips), trips
