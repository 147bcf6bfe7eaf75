"""``consent.enforce`` on hooks' context tools: a revoke while the session
opens, the store unreadable, a block between the tool's result and its
forward (the faults: ``enforce_support.py``)."""

from __future__ import annotations

import uuid

import pytest

from consent.enforce import CONSENT_UNAVAILABLE
from tests.consent.enforce_support import _block, _revoke, while_answering, while_session_opens
from tests.hooks.conftest import approve

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


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
