"""``consent.enforce`` on the conversation fan-out: a revoke while the
session opens, the store unreadable, a block between the reply and its
forward, and a revoke after the plan on a session already open (the
faults: ``enforce_support.py``)."""

from __future__ import annotations

import pytest

from consent.enforce import CONSENT_UNAVAILABLE
from consent.services import host_policy_update
from tests.consent.enforce_support import (
    SLOW_MS,
    _block,
    _message,
    _messages_received,
    _revoke,
    while_answering,
    while_session_opens,
)
from tests.consent.support import allow_all, open_request
from tests.subscriptions.support import SYSTEM

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


# --- the conversation fan-out -----------------------------------------------------------


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
