"""``consent.enforce`` on MCPE tool calls: the calls that carry the user's
request ask first; a revoke while an earlier call is held, and the store
unreadable, send nothing after it (the faults: ``enforce_support.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from django.db import connection

from consent.enforce import CONSENT_UNAVAILABLE
from consent.services import grant_revoke
from subscriptions.models import Mode, Subscription, SubscriptionStatus
from switchboard.actors import Actor
from switchboard.services.servers import server_register
from tests.consent.enforce_support import _revoke, meanwhile
from tests.subscriptions.support import SYSTEM, approve_events, make_subscription

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


# --- MCPE tool calls --------------------------------------------------------------------


def test_mcpe_a_tool_call_that_carries_the_users_request_asks_first(tpersonas, ref, store):
    from subscriptions.services.remote import events_step_allowed

    grant = approve_events(tpersonas.alice, ref, ["build.finished"])
    allowed = asyncio.run(events_step_allowed("subscribe", tpersonas.alice.id, ref.id))
    assert allowed
    grant_revoke(grant=grant, actor=Actor.for_user(tpersonas.alice))
    for action, expected in (("subscribe", False), ("update", False), ("resume", False)):
        assert asyncio.run(events_step_allowed(action, tpersonas.alice.id, ref.id)) is expected
    # Taking a subscription down carries nothing of the user's: it always goes.
    for action in ("pause", "unsubscribe"):
        assert asyncio.run(events_step_allowed(action, tpersonas.alice.id, ref.id))
    approve_events(tpersonas.alice, ref, ["build.finished"])
    store.take_away()
    assert not asyncio.run(events_step_allowed("subscribe", tpersonas.alice.id, ref.id))


# The MCPE server holds a tool call in hand (``/control/mcpe/delay``) where
# the session worker's hold (run here, in this process) waits for an answer.
MCPE_CARRYING = ("events_subscribe", "events_update", "events_resume")


@pytest.fixture
def mcpe_ref(tpersonas, refserver):
    server = server_register(
        host=tpersonas.acme, name="Alerts", url=refserver.mcpe_url, actor=SYSTEM
    )
    assert server.status == "active", server.last_error_detail
    return server


def _mcpe_calls(refserver) -> list[dict]:
    return refserver.control("GET", "mcpe/calls")["calls"]


def _mcpe_held(refserver, tool: str) -> Callable[[], bool]:
    """``meanwhile``'s hook point: the server has a call of ``tool`` in hand
    (recorded on arrival; held by a delay, not answered yet)."""
    refserver.control("POST", "mcpe/delay", {"tool": tool, "delay_ms": 30_000})
    return lambda: any(c["name"] == tool for c in _mcpe_calls(refserver))


def _then_release(refserver, tool: str, action: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        action()  # committed while the call is in the server's hands
        refserver.control("POST", "mcpe/delay", {"tool": tool, "delay_ms": 0})

    return run


def _mcpe_sub(tpersonas, server, n: int) -> Subscription:
    return make_subscription(
        tpersonas.alice,
        server,
        event="",
        arguments={"n": n},
        status=SubscriptionStatus.PENDING,
        mode=Mode.MCPE,
        filter={"event_types": ["alert.*"]},
    )


def _hold_mcpe(tpersonas, server, until: Callable[[], bool] | None = None) -> str:
    """The session worker's hold of alice's MCPE session, in this process:
    its outcome, or ``"stopped"`` once ``until()`` holds (checked between
    its steps; the hold itself waits MCPE_CHECK_INTERVAL between checks)."""
    from asgiref.sync import sync_to_async

    from subscriptions.models import mcpe_session_item
    from subscriptions.services.mcpe import mcpe_hold
    from switchboard.sessions.report import StreamReport
    from switchboard.sessions.shared import SharedSessions

    item = mcpe_session_item(tpersonas.alice.id, server.id)

    def holds() -> bool:
        try:
            return until is not None and until()
        finally:
            connection.close()

    async def hold() -> str:
        sessions = SharedSessions()
        report = StreamReport(key=f"mcpe:{item}", holder="test", sessions=sessions, framed=set())
        task = asyncio.ensure_future(mcpe_hold(item, report))
        try:
            async with asyncio.timeout(20):
                while not task.done():
                    if await sync_to_async(holds, thread_sensitive=False)():
                        return "stopped"
                    await asyncio.wait([task], timeout=0.1)
            return task.result()
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await sessions.close()

    return asyncio.run(hold())


def test_mcpe_a_revoke_while_an_earlier_call_is_held_sends_nothing_after_it(
    tpersonas, refserver, mcpe_ref
):
    grant = approve_events(tpersonas.alice, mcpe_ref, ["alert.*"])
    first, second = _mcpe_sub(tpersonas, mcpe_ref, 1), _mcpe_sub(tpersonas, mcpe_ref, 2)
    held = _mcpe_held(refserver, "events_subscribe")
    with meanwhile(held, _then_release(refserver, "events_subscribe", _revoke(grant))):
        outcome = _hold_mcpe(tpersonas, mcpe_ref)
    assert outcome == "done"
    calls = [c["name"] for c in _mcpe_calls(refserver)]
    # The held call was sent before the revoke; nothing carrying the user's
    # request went after it (the second subscription was never made).
    assert calls.count("events_subscribe") == 1, calls
    after = calls[calls.index("events_subscribe") + 1 :]
    assert not [name for name in after if name in MCPE_CARRYING], calls
    # What the held call made on the server, after ours ended, is taken down.
    assert "events_unsubscribe" in after, calls
    assert refserver.control("GET", "mcpe/subscriptions")["subscriptions"] == []
    first.refresh_from_db()
    assert (first.status, first.unsubscribe_state) == (SubscriptionStatus.REVOKED, "done")
    second.refresh_from_db()
    assert (second.status, second.remote_id) == (SubscriptionStatus.REVOKED, "")
    assert second.last_error == "no_consent"  # the call consent stopped, shown


def test_mcpe_an_unreadable_store_sends_nothing_and_says_so(tpersonas, refserver, mcpe_ref, store):
    approve_events(tpersonas.alice, mcpe_ref, ["alert.*"])
    sub = _mcpe_sub(tpersonas, mcpe_ref, 1)

    def shown() -> bool:
        return Subscription.objects.filter(pk=sub.pk, last_error=CONSENT_UNAVAILABLE).exists()

    # The session is open and the server's list being read when the store goes.
    held = _mcpe_held(refserver, "events_list")
    with meanwhile(held, _then_release(refserver, "events_list", store.take_away)):
        outcome = _hold_mcpe(tpersonas, mcpe_ref, until=shown)
    store.put_back()
    calls = [c["name"] for c in _mcpe_calls(refserver)]
    assert not [name for name in calls if name in MCPE_CARRYING], calls
    assert refserver.control("GET", "mcpe/subscriptions")["subscriptions"] == []
    assert outcome == "stopped"
    sub.refresh_from_db()
    # Not revoked: consent that could not be read is no answer; asked again.
    assert (sub.status, sub.last_error) == (SubscriptionStatus.PENDING, CONSENT_UNAVAILABLE)
    assert "nothing was sent" in sub.last_error_message
    assert tpersonas.acme_api.get(f"/subscriptions/{sub.pk}").json()["last_error"] == (
        CONSENT_UNAVAILABLE
    )
