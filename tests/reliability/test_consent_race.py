"""docs/reliability.md row 10: consent revoked while a message fan-out or a refresh is
in flight. Nothing may reach the server after the revoke committed.

The reference server is made slow where the race is widest: opening the MCP
session (``server/discover``, and ``initialize`` for the fallback), which
comes after consent was read and before the message or ``events/subscribe``
is sent. The revoke lands while the session is opening; the server's own
records (the time it received each call) are then compared with the
revoke's ledger entry, written inside the revoke's transaction, so before
its commit.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime

import httpx
import pytest

from consent.models import Scope
from consent.services import grant_approve, grant_request, grant_revoke, host_policy_update
from subscriptions.models import RefreshAttempt, Subscription
from switchboard.actors import Actor
from switchboard.models import AuditEntry
from switchboard.queue import enqueue
from switchboard.services.servers import server_register
from tests.consent.support import allow_all, open_request
from tests.subscriptions.support import SYSTEM, wait_for

pytestmark = pytest.mark.processes

SESSION_OPEN = ("server/discover", "initialize")
SLOW_MS = 2500
# On a loaded machine the session's worker can run well behind beat's ticks.
QUEUE_SLACK = 90


@pytest.fixture
def ref(live, tpersonas, refserver):
    server = server_register(host=tpersonas.acme, name="Ref", actor=SYSTEM, url=refserver.mcp_url)
    assert server.status == "active", server.last_error_detail
    return server


def _slow_session_open(refserver) -> None:
    for method in SESSION_OPEN:
        refserver.control("POST", "behaviour", {"method": method, "delay_ms": SLOW_MS})


def _session_opens(refserver) -> int:
    requests = refserver.control("GET", "received?kinds=requests")["requests"]
    return sum(1 for r in requests if r["method"] in SESSION_OPEN)


def _received(refserver, kind: str) -> list[dict]:
    return refserver.control("GET", f"received?kinds={kind}")[kind]


def _at(entry: dict) -> datetime:
    return datetime.fromisoformat(entry["at"].replace("Z", "+00:00"))


def _revoked_at(grant) -> datetime:
    """The revoke's ledger entry: written in its transaction, so no later
    than its commit."""
    entry = AuditEntry.objects.filter(
        kind="consent.revoked", subject_type="grant", subject_id=grant.id
    ).latest("id")
    return entry.at


def test_a_message_in_flight_is_not_sent_after_the_revoke(live, tpersonas, refserver, ref):
    grant = allow_all(open_request(tpersonas, ref, ["conversation:read"])).grants.get()
    # Room for the slow session open: the race, not the budget, is under test.
    host_policy_update(host=tpersonas.acme, actor=SYSTEM, conversation_budget_ms=4 * SLOW_MS)
    _slow_session_open(refserver)
    opens_before = _session_opens(refserver)
    answer: dict = {}

    def post() -> None:
        response = httpx.post(
            f"{live.base_url}/api/v1/conversations/race/messages",
            headers={"Authorization": f"Bearer {tpersonas.acme_key}"},
            json={"user": "alice", "message_id": "in-flight", "content": "my secret plans"},
            timeout=30,
        )
        answer.update(status=response.status_code, body=response.json())

    sender = threading.Thread(target=post)
    sender.start()
    # The plan has read the grant as live and the session is opening.
    wait_for(lambda: _session_opens(refserver) > opens_before, message="the session opening")
    grant_revoke(grant=grant, actor=Actor.for_user(tpersonas.alice))
    revoked_at = _revoked_at(grant)
    sender.join(timeout=30)

    assert answer["status"] == 200, answer
    late = [m for m in _received(refserver, "userMessages") if _at(m) >= revoked_at]
    assert late == [], f"sent after the revoke ({revoked_at.isoformat()}): {late}"
    assert answer["body"]["items"] == [], answer["body"]
    assert answer["body"]["skipped"] == [{"server": ref.id, "reason": "no_consent", "detail": None}]


def test_a_refresh_in_flight_is_not_sent_after_the_revoke(live, tpersonas, refserver, ref):
    grant = grant_request(
        user=tpersonas.alice,
        server=ref,
        scope=Scope.EVENTS,
        actor=SYSTEM,
        event_types=["build.finished"],
    )
    grant = grant_approve(
        grant=grant, actor=Actor.for_user(tpersonas.alice), event_types=["build.finished"]
    )
    created = tpersonas.acme_api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": ref.id,
            "event": "build.finished",
            "arguments": {"repo": "acme/app"},
            "ttl_ms": 60000,
        },
    )
    assert created.status_code == 201, created.content
    sub_id = created.json()["id"]
    wait_for(
        lambda: Subscription.objects.get(pk=sub_id).status == "active",
        timeout=QUEUE_SLACK,
        message="subscribed",
    )
    assert len(_received(refserver, "subscribe")) == 1
    attempts_before = RefreshAttempt.objects.filter(subscription_id=sub_id).count()

    _slow_session_open(refserver)
    opens_before = _session_opens(refserver)
    enqueue("subscriptions.refresh_subscription", sub_id)  # the worker refreshes it now
    # The refresh has found consent live and is opening its session.
    wait_for(
        lambda: _session_opens(refserver) > opens_before,
        timeout=QUEUE_SLACK,
        message="the refresh started",
    )
    grant_revoke(grant=grant, actor=Actor.for_user(tpersonas.alice))
    revoked_at = _revoked_at(grant)

    # The refresh ends either way: refused, or sent and then compensated.
    wait_for(
        lambda: (
            RefreshAttempt.objects.filter(subscription_id=sub_id).count() > attempts_before
            or _refresh_done(sub_id)
        ),
        timeout=QUEUE_SLACK,
        message="the refresh finished",
    )
    time.sleep(SLOW_MS / 1000 + 1)  # anything it still had on the wire has landed
    late = [s for s in _received(refserver, "subscribe") if _at(s) >= revoked_at]
    assert late == [], f"subscribed after the revoke ({revoked_at.isoformat()}): {late}"
    assert Subscription.objects.get(pk=sub_id).status == "revoked"


def _refresh_done(sub_id: str) -> bool:
    return Subscription.objects.get(pk=sub_id).refresh_claimed_until is None
