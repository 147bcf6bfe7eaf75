"""``consent.enforce``: the one check before a user's data leaves, on every
outbound path, against the reference MCP server over Streamable HTTP and
the test database.

Each path is driven through three faults, at the moment they matter:

- **a revoke committed while the session opens**: the reference server is
  slowed where the race is widest (``server/discover``, ``initialize``); a
  thread of the test, with a database connection of its own, commits the
  revoke once the server has seen the session opening. Nothing may reach the
  server after it.
- **the consent store unreachable**: at the same point the grant table is
  renamed away from another connection (the store still answers for
  everything else, so only consent is missing) and put back afterwards.
  Nothing may leave, and the host is told why.
- **a block between receipt and forward**: the server's answer (a reply, a
  tool result) or an event is in our hands and not yet with the host when
  the kill switch is thrown (or the grant's expiry passes, which nothing
  withdraws). It must not be forwarded; events are checked again when the
  outbox sends them (``test_forward_*``, every receiving path: webhook,
  poll, push, MCPE notifications).

The paths: the fan-out (also on a session already open), subscribe and
refresh, poll, push (``events/stream``, the session worker's hold run in
this process), task sources (``tasks/get``), MCPE tool calls (the session
worker's hold run in this process; the MCPE server holds a call in hand,
``/control/mcpe/delay``, while the fault strikes), context tools, and pull
delivery (tests/subscriptions/test_pull_consent.py).
Each test names its path.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from django.db import connection

from consent.enforce import CONSENT_UNAVAILABLE, outbound_check, outbound_check_many
from consent.models import Grant, Scope
from consent.services import grant_revoke, host_policy_update
from outbox.models import DeliveryStatus, HostDelivery
from subscriptions.models import Mode, Subscription, SubscriptionStatus
from subscriptions.services import webhook_receive
from subscriptions.services.poll import subscription_poll
from subscriptions.services.refresh import subscription_refresh
from switchboard.actors import Actor
from switchboard.services.server_block import server_block
from switchboard.services.servers import server_register
from tests.consent.support import ConsentStore, allow_all, open_request
from tests.hooks.conftest import approve
from tests.subscriptions.support import (
    SYSTEM,
    approve_events,
    event_body,
    make_subscription,
    signed,
    wait_for,
)

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]

SESSION_OPEN = ("server/discover", "initialize")
SLOW_MS = 1500


# --- the hook points ------------------------------------------------------------------


def _requests(refserver, *methods: str) -> int:
    received = refserver.control("GET", "received?kinds=requests")["requests"]
    return sum(1 for r in received if r["method"] in methods)


def _slow(refserver, *methods: str, delay_ms: int = SLOW_MS) -> None:
    for method in methods:
        refserver.control("POST", "behaviour", {"method": method, "delay_ms": delay_ms})


@contextmanager
def meanwhile(when: Callable[[], bool], action: Callable[[], None]) -> Iterator[None]:
    """Run ``action`` on a thread of its own (its own database connection,
    so what it does is committed) as soon as ``when()`` holds, while the
    body runs."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            wait_for(when, timeout=30, interval=0.02, message="the hook point")
            action()
        except BaseException as error:  # re-raised in the test's thread
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    try:
        yield
    finally:
        thread.join(timeout=60)
    if errors:
        raise errors[0]


def while_session_opens(refserver, action: Callable[[], None]):
    """``meanwhile``: once the server has seen a session start opening."""
    _slow(refserver, *SESSION_OPEN)
    before = _requests(refserver, *SESSION_OPEN)
    return meanwhile(lambda: _requests(refserver, *SESSION_OPEN) > before, action)


def while_answering(refserver, method: str, action: Callable[[], None]):
    """``meanwhile``: once the server has the request in hand (it answers
    ``SLOW_MS`` later): its answer is received after ``action``."""
    _slow(refserver, method)
    before = _requests(refserver, method)
    return meanwhile(lambda: _requests(refserver, method) > before, action)


@pytest.fixture
def store(transactional_db) -> Iterator[ConsentStore]:
    store = ConsentStore()
    yield store
    store.put_back()


def _revoke(grant: Grant) -> Callable[[], None]:
    return lambda: grant_revoke(grant=grant, actor=Actor.for_user(grant.user))


def _block(server) -> Callable[[], None]:
    return lambda: server_block(server=server, actor=SYSTEM)


@pytest.fixture
def ref(tpersonas, refserver):
    server = server_register(host=tpersonas.acme, name="Ref", url=refserver.mcp_url, actor=SYSTEM)
    assert server.status == "active", server.last_error_detail
    return server


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


# --- the conversation fan-out -----------------------------------------------------------


def _message(tpersonas, message_id: str):
    return tpersonas.acme_api.post(
        "/conversations/enforce/messages",
        json={"user": "alice", "message_id": message_id, "content": "my secret plans"},
    )


def _messages_received(refserver) -> list[str]:
    return [
        m["messageId"]
        for m in refserver.control("GET", "received?kinds=userMessages")["userMessages"]
    ]


@pytest.fixture
def conversing(tpersonas, ref):
    grant = allow_all(open_request(tpersonas, ref, ["conversation:read"])).grants.get()
    # Room for the slowed server: the race, not the budget, is under test.
    host_policy_update(host=tpersonas.acme, actor=SYSTEM, conversation_budget_ms=4 * SLOW_MS)
    return grant


def test_fanout_a_revoke_while_the_session_opens_sends_nothing(
    tpersonas, refserver, ref, conversing
):
    with while_session_opens(refserver, _revoke(conversing)):
        answer = _message(tpersonas, "revoked")
    assert answer.status_code == 200, answer.content
    assert _messages_received(refserver) == []
    assert answer.json()["items"] == []
    assert answer.json()["skipped"] == [{"server": ref.id, "reason": "no_consent", "detail": None}]


def test_fanout_an_unreadable_store_sends_nothing_and_says_so(
    tpersonas, refserver, ref, conversing, store
):
    with while_session_opens(refserver, store.take_away):
        answer = _message(tpersonas, "unreadable")
    store.put_back()
    assert _messages_received(refserver) == []
    assert answer.status_code == 200, answer.content
    assert answer.json()["skipped"] == [
        {"server": ref.id, "reason": "no_consent", "detail": CONSENT_UNAVAILABLE}
    ]


def test_fanout_a_block_between_the_reply_and_its_forward_drops_the_reply(
    tpersonas, refserver, ref, conversing
):
    with while_answering(refserver, "conversation/userMessage", _block(ref)):
        answer = _message(tpersonas, "blocked")
    assert answer.status_code == 200, answer.content
    assert _messages_received(refserver) == ["blocked"]  # it was asked before the block
    assert answer.json()["items"] == [] and answer.json()["context"] == ""
    assert answer.json()["skipped"] == [{"server": ref.id, "reason": "no_consent", "detail": None}]


def test_fanout_a_revoke_after_the_plan_stops_a_message_on_an_open_session(
    tpersonas, refserver, ref, conversing
):
    """The session is already open and pooled (as daphne keeps them), so no
    wait separates the plan's read from the send; a revoke that commits in
    between must still stop the message: the check runs on every call."""
    import time

    from asgiref.sync import async_to_sync, sync_to_async

    from consent.fanout import WITHDRAWN, conversation_fanout
    from consent.services.conversation import conversation_plan

    async def stale_plan_on_an_open_session():
        plan = await sync_to_async(conversation_plan)(
            host=tpersonas.acme, conversation_id="open", user_external_id="alice", server_ids=None
        )

        async def send(message_id: str):
            deadline = time.monotonic() + 5
            return await conversation_fanout(
                plan.targets,
                message_id=message_id,
                content="secret",
                history=None,
                deadline=deadline,
            )

        warm = await send("warm")  # opens the pooled session
        await sync_to_async(_revoke(conversing))()  # committed after the plan read it
        return warm, await send("after-revoke")

    warm, stale = async_to_sync(stale_plan_on_an_open_session)()
    assert [o.outcome for o in warm] == ["ok"]
    assert [(o.outcome, o.error) for o in stale] == [(WITHDRAWN, "no_consent")]
    assert _messages_received(refserver) == ["warm"]


# --- hooks' context tools ---------------------------------------------------------------


def _brief_calls(refserver) -> list[dict]:
    calls = refserver.control("GET", "received?kinds=toolCalls")["toolCalls"]
    return [c for c in calls if c["name"] == "project_brief"]


def _session_start(tpersonas, server, session: str | None = None):
    return tpersonas.acme_api.post(
        f"/sessions/{session or uuid.uuid4().hex}/lifecycle",
        {"user": "alice", "event": "session_start", "servers": [server.id], "project_name": "x"},
    )


@pytest.fixture
def briefing(tpersonas, ref, settings):
    from tests.hooks.test_with_refserver import declared

    settings.HOOK_CONTEXT_TOOL_TIMEOUT = 5
    settings.HOOK_READINESS_WAIT = 5
    return approve(tpersonas.alice, ref, declared(ref, event="session_start"))


def test_context_tool_a_revoke_while_the_session_opens_sends_nothing(
    tpersonas, refserver, ref, briefing
):
    with while_session_opens(refserver, _revoke(briefing)):
        answer = _session_start(tpersonas, ref)
    assert answer.status_code == 200, answer.content
    assert _brief_calls(refserver) == []
    assert answer.json()["injections"] == []
    assert [s["reason"] for s in answer.json()["suppressed"]] == ["no_consent"]


def test_context_tool_an_unreadable_store_sends_nothing_and_says_so(
    tpersonas, refserver, ref, briefing, store
):
    with while_session_opens(refserver, store.take_away):
        answer = _session_start(tpersonas, ref)
    store.put_back()
    assert _brief_calls(refserver) == []
    assert answer.status_code == 503, answer.content
    assert answer.json()["error"]["code"] == CONSENT_UNAVAILABLE


def test_context_tool_a_block_between_the_result_and_its_forward_drops_it(
    tpersonas, refserver, ref, briefing
):
    with while_answering(refserver, "tools/call", _block(ref)):
        answer = _session_start(tpersonas, ref)
    assert answer.status_code == 200, answer.content
    assert len(_brief_calls(refserver)) == 1  # asked before the block
    assert answer.json()["injections"] == []
    assert [s["reason"] for s in answer.json()["suppressed"]] == ["no_consent"]


# --- events: subscribe, refresh, poll -----------------------------------------------------


@pytest.fixture
def events_grant(tpersonas, ref):
    return approve_events(tpersonas.alice, ref, ["build.finished", "ticket.created"])


def _subscribes(refserver) -> list[dict]:
    return refserver.control("GET", "received?kinds=subscribe")["subscribe"]


def _polls(refserver) -> list[dict]:
    return refserver.control("GET", "received?kinds=poll")["poll"]


def _subscription(tpersonas, ref, *, status: str, mode: str = Mode.WEBHOOK, event=None):
    return make_subscription(
        tpersonas.alice,
        ref,
        event=event or ("ticket.created" if mode == Mode.POLL else "build.finished"),
        arguments={"project": "apollo"} if mode == Mode.POLL else None,
        status=status,
        mode=mode,
    )


@pytest.mark.parametrize(
    "status", [SubscriptionStatus.PENDING, SubscriptionStatus.ACTIVE], ids=["subscribe", "refresh"]
)
def test_subscribe_and_refresh_a_revoke_while_the_session_opens_sends_nothing(
    tpersonas, refserver, ref, events_grant, status
):
    sub = _subscription(tpersonas, ref, status=status)
    with while_session_opens(refserver, _revoke(events_grant)):
        outcome = subscription_refresh(subscription_id=sub.pk)
    assert outcome == "revoked"
    assert _subscribes(refserver) == []
    assert Subscription.objects.get(pk=sub.pk).status == SubscriptionStatus.REVOKED


@pytest.mark.parametrize(
    "status", [SubscriptionStatus.PENDING, SubscriptionStatus.ACTIVE], ids=["subscribe", "refresh"]
)
def test_subscribe_and_refresh_an_unreadable_store_sends_nothing_and_says_so(
    tpersonas, refserver, ref, events_grant, store, status
):
    sub = _subscription(tpersonas, ref, status=status)
    with while_session_opens(refserver, store.take_away):
        outcome = subscription_refresh(subscription_id=sub.pk)
    store.put_back()
    assert outcome == "retry"
    assert _subscribes(refserver) == []
    sub.refresh_from_db()
    # Not revoked: consent that could not be read is no answer; tried again.
    assert (sub.status, sub.last_error) == (status, CONSENT_UNAVAILABLE)
    assert "nothing was sent" in sub.last_error_message
    assert sub.next_refresh_at is not None
    assert tpersonas.acme_api.get(f"/subscriptions/{sub.pk}").json()["last_error"] == (
        CONSENT_UNAVAILABLE
    )


def test_poll_a_revoke_while_the_session_opens_sends_nothing(
    tpersonas, refserver, ref, events_grant
):
    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE, mode=Mode.POLL)
    with while_session_opens(refserver, _revoke(events_grant)):
        outcome = subscription_poll(subscription_id=sub.pk)
    assert outcome == "revoked"
    assert _polls(refserver) == []


def test_poll_an_unreadable_store_sends_nothing_and_says_so(
    tpersonas, refserver, ref, events_grant, store
):
    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE, mode=Mode.POLL)
    with while_session_opens(refserver, store.take_away):
        outcome = subscription_poll(subscription_id=sub.pk)
    store.put_back()
    assert outcome == "retry"
    assert _polls(refserver) == []
    sub.refresh_from_db()
    assert (sub.status, sub.last_error) == (SubscriptionStatus.ACTIVE, CONSENT_UNAVAILABLE)


def _unsent_events(sub) -> list[HostDelivery]:
    return list(
        HostDelivery.objects.filter(stream=sub.pk, type="event.received").exclude(
            status__in=[DeliveryStatus.FAILED, DeliveryStatus.DELIVERED]
        )
    )


def _assert_withdrawn(tpersonas, sub) -> None:
    rows = HostDelivery.objects.filter(stream=sub.pk, type="event.received")
    assert rows.exists()
    assert _unsent_events(sub) == []
    for row in rows:
        assert row.status == DeliveryStatus.FAILED
        assert row.last_error_category == "server_blocked"
        assert row.body["data"]["event"]["data"] is None
    # Pull delivery does not hand the event's data out either.
    pulled = tpersonas.acme_api.get(f"/subscriptions/{sub.pk}/events").json()["items"]
    assert all(
        item["data"]["event"]["data"] is None for item in pulled if item["type"] == "event.received"
    ), pulled


def test_poll_a_block_between_receipt_and_forward_stops_the_events(
    tpersonas, refserver, ref, events_grant
):
    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE, mode=Mode.POLL)
    assert subscription_poll(subscription_id=sub.pk) == "ok"  # the cursor: events from now on
    refserver.control(
        "POST",
        "emit",
        {
            "name": "ticket.created",
            "data": {"key": "T-1", "title": "secret"},
            "arguments": {"project": "apollo"},
        },
    )
    assert subscription_poll(subscription_id=sub.pk) == "ok"
    # Received, and waiting for the host (it has no endpoint yet).
    assert len(_unsent_events(sub)) == 1
    server_block(server=ref, actor=SYSTEM)
    _assert_withdrawn(tpersonas, sub)


def test_webhook_a_block_between_receipt_and_forward_stops_the_events(tpersonas, ref, events_grant):
    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE)
    Subscription.objects.filter(pk=sub.pk).update(remote_id="sub_remote")
    headers, raw = signed(sub.secret, event_body("evt_secret", repo="acme/secret"))
    assert webhook_receive(token=sub.token, headers=headers, body=raw).status == 200
    assert len(_unsent_events(sub)) == 1
    server_block(server=ref, actor=SYSTEM)
    _assert_withdrawn(tpersonas, sub)


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


# --- push: the held events/stream -------------------------------------------------------


def _requested(refserver, method: str) -> int:
    return _requests(refserver, method)


def _hold_push(sub) -> str:
    """The session worker's hold of one push stream, in this process (its
    own event loop; sessions borrowed as the worker's are)."""
    from subscriptions.services.push import push_hold
    from switchboard.sessions.report import StreamReport
    from switchboard.sessions.shared import SharedSessions

    async def hold() -> str:
        sessions = SharedSessions()
        report = StreamReport(key=f"push:{sub.pk}", holder="test", sessions=sessions, framed=set())
        try:
            return await asyncio.wait_for(push_hold(sub.pk, report), timeout=15)
        finally:
            await sessions.close()

    return asyncio.run(hold())


def test_push_a_revoke_while_the_session_opens_opens_no_stream(
    tpersonas, refserver, ref, events_grant
):
    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE, mode=Mode.PUSH)
    with while_session_opens(refserver, _revoke(events_grant)):
        outcome = _hold_push(sub)
    assert outcome == "done"
    assert _requested(refserver, "events/stream") == 0
    assert Subscription.objects.get(pk=sub.pk).status == SubscriptionStatus.REVOKED


def test_push_an_unreadable_store_opens_no_stream_and_says_so(
    tpersonas, refserver, ref, events_grant, store
):
    from consent.enforce import OutboundRefused

    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE, mode=Mode.PUSH)
    with pytest.raises(OutboundRefused), while_session_opens(refserver, store.take_away):
        _hold_push(sub)  # raising: the worker reconnects after its backoff
    store.put_back()
    assert _requested(refserver, "events/stream") == 0
    sub.refresh_from_db()
    # Not revoked: consent that could not be read is no answer; tried again.
    assert (sub.status, sub.last_error) == (SubscriptionStatus.ACTIVE, CONSENT_UNAVAILABLE)


# --- task sources: tasks/get on the user's behalf ---------------------------------------


@pytest.fixture
def watched_task(tpersonas, refserver, ref, events_grant, settings):
    from subscriptions.models import TaskWatch

    settings.TASK_EVENT_SOURCES = True
    approve_events(tpersonas.alice, ref, ["build.finished", "ticket.created", "deploy.progress"])
    created = refserver.control("POST", "tasks", {"service": "api", "poll_interval_ms": 500})
    answer = tpersonas.acme_api.post(
        "/tasks",
        json={
            "user": "alice",
            "server": ref.id,
            "task_id": created["task"]["taskId"],
            "event_source": created["eventSource"],
        },
    )
    assert answer.status_code == 201, answer.content
    return TaskWatch.objects.get(pk=answer.json()["id"])


def _check_task(watch) -> str:
    from subscriptions.services.task_sources import task_watch_check

    watch.refresh_from_db()
    return task_watch_check(watch_id=watch.pk, due=watch.next_check_at.isoformat())


def test_task_source_a_revoke_while_the_session_opens_sends_nothing(
    tpersonas, refserver, ref, watched_task
):
    grant = Grant.objects.live().get(user=tpersonas.alice, server=ref, scope=Scope.EVENTS)
    with while_session_opens(refserver, _revoke(grant)):
        outcome = _check_task(watched_task)
    assert outcome == "retry"
    assert _requested(refserver, "tasks/get") == 0
    watched_task.refresh_from_db()
    assert watched_task.ended_at is None and watched_task.last_error.startswith("no_consent")


def test_task_source_an_unreadable_store_sends_nothing_and_says_so(
    tpersonas, refserver, ref, watched_task, store
):
    with while_session_opens(refserver, store.take_away):
        outcome = _check_task(watched_task)
    store.put_back()
    assert outcome == "retry"
    assert _requested(refserver, "tasks/get") == 0
    watched_task.refresh_from_db()
    assert watched_task.ended_at is None
    assert watched_task.last_error.startswith(CONSENT_UNAVAILABLE)


# --- forwarding: events received, checked again when they are sent to the host -----------


@pytest.fixture
def host_endpoint(tpersonas, receiver, tasks_sent, settings):
    """Acme's endpoint at a real HTTP receiver; rows are sent by the test
    (``outbox.services.host_deliveries_send``), not by a worker, with room
    for a loaded machine (no POST given up as a timeout)."""
    settings.HOST_DELIVERY_TIMEOUT = 20
    settings.HOST_DELIVERY_LEASE_MARGIN = 20
    answer = tpersonas.acme_api.put("/host/endpoint", json={"url": receiver.url})
    assert answer.status_code == 200, answer.content
    receiver.secret = answer.json()["secret"]
    return receiver


def _received_by_webhook(tpersonas, refserver, ref):
    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE)
    Subscription.objects.filter(pk=sub.pk).update(remote_id="sub_remote")
    for n in (1, 2):
        headers, raw = signed(sub.secret, event_body(f"evt_{n}", repo="acme/secret"))
        assert webhook_receive(token=sub.token, headers=headers, body=raw).status == 200
    return sub


def _received_by_poll(tpersonas, refserver, ref):
    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE, mode=Mode.POLL)
    assert subscription_poll(subscription_id=sub.pk) == "ok"  # the cursor: events from now on
    for n in (1, 2):
        refserver.control(
            "POST",
            "emit",
            {
                "name": "ticket.created",
                "data": {"key": f"T-{n}", "title": "secret"},
                "arguments": {"project": "apollo"},
            },
        )
    assert subscription_poll(subscription_id=sub.pk) == "ok"
    return sub


def _received_by_push(tpersonas, refserver, ref, repo: str = "acme/app"):
    from subscriptions.services.push import Frame, push_frames_take

    sub = make_subscription(
        tpersonas.alice,
        ref,
        arguments={"repo": repo},
        status=SubscriptionStatus.ACTIVE,
        mode=Mode.PUSH,
    )
    push_frames_take(
        [
            Frame(
                sub.pk,
                "event",
                {
                    "eventId": f"evt-{n}",
                    "name": "build.finished",
                    "timestamp": "2026-11-25T10:00:00Z",
                    "data": {"repo": "acme/secret"},
                    "cursor": str(n),
                },
            )
            for n in (1, 2)
        ]
    )
    return sub


def _received_by_mcpe(tpersonas, refserver, ref):
    from subscriptions.models import mcpe_session_item
    from subscriptions.services.mcpe import mcpe_notification_take

    sub = _subscription(tpersonas, ref, status=SubscriptionStatus.ACTIVE, mode=Mode.MCPE)
    Subscription.objects.filter(pk=sub.pk).update(remote_id="mcpe-remote")
    events = [
        {"id": f"evt-{n}", "type": "build.finished", "data": {"repo": "acme/secret"}}
        for n in (1, 2)
    ]
    mcpe_notification_take(
        mcpe_session_item(tpersonas.alice.id, ref.id),
        "events/batch",
        {"subscriptionId": "mcpe-remote", "events": events},
    )
    return sub


RECEIPTS = {
    "webhook": _received_by_webhook,
    "poll": _received_by_poll,
    "push": _received_by_push,
    "mcpe": _received_by_mcpe,
}


def _lapse(grant: Grant) -> Callable[[], None]:
    """The grant's expiry passes; the sweep that ends what it covered has not
    run yet (nothing withdrew the events waiting)."""
    from datetime import timedelta

    from django.utils import timezone

    return lambda: Grant.objects.filter(pk=grant.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )


def _send_waiting(sub) -> list[int]:
    from outbox.services import host_deliveries_send

    seqs = list(
        HostDelivery.objects.filter(stream=sub.pk, status=DeliveryStatus.PENDING)
        .order_by("seq")
        .values_list("seq", flat=True)
    )
    host_deliveries_send(seqs=seqs)  # a burst (several rows at once)
    for seq in seqs:
        host_deliveries_send(seqs=[seq])  # and a row alone (another path)
    return seqs


@pytest.mark.parametrize("fault", ["lapsed", "blocked"])
@pytest.mark.parametrize("path", list(RECEIPTS))
def test_forward_consent_gone_between_receipt_and_forward_stops_the_events(
    tpersonas, refserver, ref, events_grant, host_endpoint, path, fault
):
    sub = RECEIPTS[path](tpersonas, refserver, ref)
    waiting = _unsent_events(sub)
    assert len(waiting) == 2 and all(r.status == DeliveryStatus.PENDING for r in waiting)
    (_lapse(events_grant) if fault == "lapsed" else _block(ref))()
    _send_waiting(sub)
    assert host_endpoint.accepted("event.received") == []
    rows = HostDelivery.objects.filter(stream=sub.pk, type="event.received")
    for row in rows:
        assert row.status == DeliveryStatus.FAILED
        assert row.last_error_category == ("no_consent" if fault == "lapsed" else "server_blocked")
        assert row.body["data"]["event"]["data"] is None
        assert not row.tries.exists()  # nothing was sent: no attempt


def test_forward_an_unreadable_store_holds_the_events_and_loses_none(
    tpersonas, refserver, ref, events_grant, host_endpoint, store
):
    from datetime import timedelta

    from django.utils import timezone

    sub = _received_by_webhook(tpersonas, refserver, ref)
    store.take_away()
    _send_waiting(sub)
    store.put_back()
    assert host_endpoint.accepted("event.received") == []
    rows = list(HostDelivery.objects.filter(stream=sub.pk, type="event.received"))
    assert len(rows) == 2
    for row in rows:
        # Not sent, not failed: due again, and the reason is on the row.
        assert (row.status, row.last_error_category) == (
            DeliveryStatus.PENDING,
            CONSENT_UNAVAILABLE,
        )
        assert row.next_attempt_at > timezone.now()
        assert row.body["data"]["event"]["data"] is not None
    # Once due and consent readable, they go.
    HostDelivery.objects.filter(stream=sub.pk).update(
        next_attempt_at=timezone.now() - timedelta(seconds=1)
    )
    _send_waiting(sub)
    assert len(host_endpoint.accepted("event.received")) == 2


def test_forward_the_check_costs_two_statements_a_burst_however_many_rows(
    tpersonas, refserver, ref, events_grant, host_endpoint
):
    from django.test.utils import CaptureQueriesContext

    from outbox.services import host_deliveries_send

    warm = _received_by_push(tpersonas, refserver, ref, repo="acme/warm")
    host_deliveries_send(
        seqs=[r.seq for r in _unsent_events(warm)]
    )  # the endpoint's stamp is fresh
    subs = [_received_by_push(tpersonas, refserver, ref, repo=f"acme/{n}") for n in range(3)]
    seqs = list(
        HostDelivery.objects.filter(stream__in=[s.pk for s in subs])
        .order_by("seq")
        .values_list("seq", flat=True)
    )
    assert len(seqs) == 6
    with CaptureQueriesContext(connection) as captured:
        assert host_deliveries_send(seqs=seqs) == 6
    statements = [
        q["sql"]
        for q in captured.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "BEGIN", "COMMIT"))
    ]
    # The outbox's burst costs 7 statements (tests/outbox/test_bursts.py);
    # forwarding events asks two more, for all the rows: their
    # subscriptions' users and servers, and the consent check.
    checks = [s for s in statements if "consent_grant" in s or "subscriptions_subscription" in s]
    assert len(checks) == 2, "\n".join(checks)
    assert len(statements) == 9, "\n".join(statements)
    assert len(host_endpoint.accepted("event.received")) == 8
