"""``consent.enforce``'s check itself: one statement, a block refuses, an
unreadable store refuses and says why (the faults and the paths:
``enforce_support.py``)."""

from __future__ import annotations

import pytest
from django.db import connection

from consent.enforce import CONSENT_UNAVAILABLE, outbound_check, outbound_check_many
from consent.models import Scope
from switchboard.services.server_block import server_block
from tests.subscriptions.support import SYSTEM, approve_events

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


# --- the check itself -----------------------------------------------------------------


def test_the_check_reads_the_grant_and_its_server_in_one_statement(tpersonas, ref):
    from django.test.utils import CaptureQueriesContext

    grant = approve_events(tpersonas.alice, ref, ["build.finished"])
    with CaptureQueriesContext(connection) as captured:
        assert outbound_check(grant_id=grant.pk).allowed
    # Nothing else: SQLite's BEGIN and COMMIT aside (its own transaction
    # waits for a writer, as the row lock does; in process). On PostgreSQL
    # it is one round trip, no BEGIN or COMMIT (tests/hooks/test_round_trips.py).
    statements = [
        q["sql"] for q in captured.captured_queries if not q["sql"].startswith(("BEGIN", "COMMIT"))
    ]
    assert len(statements) == 1 and "consent_grant" in statements[0], statements
    assert outbound_check(user_id=tpersonas.alice.id, server_id=ref.id, scope=Scope.EVENTS).allowed
    assert outbound_check_many(grant_ids=[grant.pk, "grt_none"]) == {
        grant.pk: outbound_check(grant_id=grant.pk),
        "grt_none": outbound_check(grant_id="grt_none"),
    }
    assert outbound_check(grant_id="grt_none").reason == "no_consent"
    server_block(server=ref, actor=SYSTEM)
    assert outbound_check(grant_id=grant.pk).reason == "no_consent"  # blocking suspends it


def test_a_blocked_server_is_refused_even_with_a_live_grant(tpersonas, ref):
    grant = approve_events(tpersonas.alice, ref, ["build.finished"])
    type(ref).objects.filter(pk=ref.pk).update(blocked_at="2026-01-01T00:00:00Z")
    assert outbound_check(grant_id=grant.pk).reason == "server_blocked"


def test_an_unreadable_store_refuses_and_says_why(tpersonas, ref, store):
    grant = approve_events(tpersonas.alice, ref, ["build.finished"])
    store.take_away()
    verdict = outbound_check(grant_id=grant.pk)
    assert (verdict.allowed, verdict.reason) == (False, CONSENT_UNAVAILABLE)
    assert "nothing was sent" in verdict.message
    assert outbound_check_many(grant_ids=[grant.pk])[grant.pk].reason == CONSENT_UNAVAILABLE
