"""MCPE as the reference implementation (``@mcpe/core``) answers, in
process: its result shapes, what the reconcile makes of them (no second
subscribe, leftovers taken down, answers checked, a lost session told to
the host once), the server's advertised limits, the per-user limits and the
default lifetime. The same against the real implementation:
tests/thirdparty/test_mcpe_core.py."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from outbox.models import HostDelivery
from outbox.services import host_endpoint_set
from subscriptions.models import (
    Mode,
    ReceivedEvent,
    Subscription,
    UnsubscribeState,
    mcpe_session_item,
)
from subscriptions.services.mcpe import (
    Step,
    mcpe_notification_take,
    mcpe_plan,
    mcpe_step_done,
    subscribe_arguments,
)
from switchboard.mcp import McpCallError
from switchboard.mcp.mcpe import (
    MCPE_TOOLS,
    answered_id,
    listed_states,
    mcpe_can_pause,
    mcpe_capability,
)
from switchboard.models import AuditEntry, McpServer
from tests.subscriptions.support import SYSTEM, approve_events, make_subscription

FOUR = ["events_subscribe", "events_unsubscribe", "events_list", "events_update"]


def _server(personas, **mcpe) -> McpServer:
    return McpServer.objects.create(
        host=personas.acme,
        name="Issues",
        url="https://mcpe.example.test/mcp",
        status="active",
        capabilities={"mcpe": {"tools": list(MCPE_TOOLS), **mcpe}},
    )


@pytest.fixture
def server(personas):
    return _server(personas)


def _sub(personas, server, n=1, **fields) -> Subscription:
    return make_subscription(
        personas.alice, server, event="", arguments={"n": n}, mode=Mode.MCPE, **fields
    )


def _item(personas, server) -> str:
    return mcpe_session_item(personas.alice.id, server.id)


# --- the shapes ------------------------------------------------------------------------


def test_list_rows_are_read_by_id_as_the_reference_implementation_answers_and_by_ours():
    upstream = {
        "subscriptions": [
            {"id": "a1", "status": "paused", "filter": {}, "pendingEvents": 0},
            {"id": "a2", "status": "active"},
        ]
    }
    assert listed_states(upstream) == {"a1": "paused", "a2": "active"}
    ours = {"subscriptions": [{"subscriptionId": "r1"}, {"nothing": 1}, "junk"]}
    assert listed_states(ours) == {"r1": "active"}
    assert listed_states({"result": [{"id": "x", "status": "expired"}]}) == {"x": "expired"}
    assert listed_states({}) == {}
    assert answered_id({"subscriptionId": "s", "status": "paused"}) == "s"
    assert answered_id({"id": "t"}) == "t" and answered_id({"success": True}) is None


def test_four_tools_make_an_mcpe_server_without_pause():
    caps = mcpe_capability([*FOUR, "other"])
    assert caps == {"tools": FOUR}
    assert not mcpe_can_pause(caps)
    assert mcpe_capability(FOUR[:-1]) is None  # no events_update: not MCPE
    six = mcpe_capability(list(MCPE_TOOLS))
    assert mcpe_can_pause(six)
    declared = {"maxSubscriptions": 2, "features": {"pause": False}}
    switched_off = mcpe_capability(list(MCPE_TOOLS), declared)
    assert switched_off["max_subscriptions"] == 2 and not mcpe_can_pause(switched_off)


# --- the reconcile ---------------------------------------------------------------------


def test_what_the_server_lists_by_id_is_not_subscribed_again(personas, server):
    approve_events(personas.alice, server, ["*"])
    _sub(personas, server, remote_id="a1")
    remote = listed_states({"subscriptions": [{"id": "a1", "status": "active"}]})
    steps = mcpe_plan(_item(personas, server), remote)
    assert not [s for s in steps if s.action == "subscribe"]


def test_leftovers_on_the_session_are_taken_down_and_a_lost_one_is_made_again(personas, server):
    approve_events(personas.alice, server, ["*"])
    lost = _sub(personas, server, 1, remote_id="old-1")
    remote = {"stray-9": "active"}
    steps = mcpe_plan(_item(personas, server), remote)
    assert Step("unsubscribe", "", {"subscriptionId": "stray-9"}) in steps
    [again] = [s for s in steps if s.action == "subscribe"]
    assert again.subscription_id == lost.pk and again.lost_remote_id == "old-1"


def test_no_pause_step_for_a_server_without_pause(personas):
    server = _server(personas, features={"pause": False})
    approve_events(personas.alice, server, ["*"])
    sub = _sub(personas, server, remote_id="p1", paused_at=timezone.now())
    Subscription.objects.filter(pk=sub.pk).update(
        remote_config=_configured(sub)  # nothing to update
    )
    assert mcpe_plan(_item(personas, server), {"p1": "active"}) == []


def _configured(sub: Subscription) -> str:
    from subscriptions.services.mcpe import _config_key

    return _config_key(subscribe_arguments(sub))


def test_an_answer_that_does_not_show_the_step_done_is_a_refusal(personas, server):
    approve_events(personas.alice, server, ["*"])
    sub = _sub(personas, server, remote_id="p1", paused_at=timezone.now())
    step = Step("pause", sub.pk, {"subscriptionId": "p1"})
    assert not mcpe_step_done(step, {"subscriptionId": "p1", "status": "active"}, None)
    sub.refresh_from_db()
    assert sub.last_error == "server_refused" and "not 'paused'" in sub.last_error_message
    assert sub.remote_state != "paused"
    assert not mcpe_step_done(step, {"subscriptionId": "p1", "status": "paused"}, None)
    sub.refresh_from_db()
    assert sub.remote_state == "paused"
    # The reference implementation's "not found" (a tool error): list again.
    gone = McpCallError("mcp_error", "events_resume refused: Subscription p1 not found")
    assert mcpe_step_done(Step("resume", sub.pk, {"subscriptionId": "p1"}), None, gone)
    # Its unsubscribe answers {success: false} for an id it does not hold: gone anyway.
    Subscription.objects.filter(pk=sub.pk).update(
        status="revoked", unsubscribe_state=UnsubscribeState.PENDING
    )
    mcpe_step_done(Step("unsubscribe", sub.pk, {"subscriptionId": "p1"}), {"success": False}, None)
    assert Subscription.objects.get(pk=sub.pk).unsubscribe_state == UnsubscribeState.DONE


def test_its_subscription_limit_refusal_reads_as_server_limit(personas, server):
    approve_events(personas.alice, server, ["*"])
    sub = _sub(personas, server, status="pending")
    refused = McpCallError(
        "mcp_error", "events_subscribe refused: Maximum subscriptions (2) reached for client"
    )
    mcpe_step_done(Step("subscribe", sub.pk, {}, config="c"), None, refused)
    sub.refresh_from_db()
    assert sub.status == "failed" and sub.last_error == "server_limit"


def test_a_lost_session_tells_the_host_once_per_subscription(personas, server):
    host_endpoint_set(host=personas.acme, url="http://127.0.0.1:9/hook", actor=SYSTEM)
    approve_events(personas.alice, server, ["*"])
    sub = _sub(personas, server, remote_id="old-1")
    step = Step("subscribe", sub.pk, {}, config="c", lost_remote_id="old-1")
    mcpe_step_done(step, {"subscriptionId": "new-1", "status": "active"}, None)
    mcpe_step_done(step, {"subscriptionId": "new-1", "status": "active"}, None)  # told already
    sub.refresh_from_db()
    assert sub.remote_id == "new-1" and sub.truncated
    [gap] = HostDelivery.objects.filter(stream=sub.id, type="subscription.gap")
    assert gap.body["data"]["reason"] == "session_lost" and gap.body["data"]["cursor"] is None
    assert ReceivedEvent.objects.filter(subscription=sub, kind="gap").count() == 1
    assert AuditEntry.objects.filter(kind="subscription.gap", subject_id=sub.id).count() == 1
    # A first subscribe (no id before) tells nothing.
    fresh = _sub(personas, server, 2, status="pending")
    mcpe_step_done(Step("subscribe", fresh.pk, {}, config="c"), {"id": "n2"}, None)
    assert not HostDelivery.objects.filter(stream=fresh.id, type="subscription.gap").exists()
    assert Subscription.objects.get(pk=fresh.pk).remote_id == "n2"


# --- limits and lifetime ---------------------------------------------------------------


def _post(personas, server, types):
    return personas.acme_api.post(
        "/subscriptions",
        json={"user": "alice", "server": server.id, "filter": {"event_types": types}},
    )


def test_the_servers_max_subscriptions_is_held_before_calling_it(personas):
    server = _server(personas, max_subscriptions=2)
    approve_events(personas.alice, server, ["*"])
    assert _post(personas, server, ["a.*"]).status_code == 201
    assert _post(personas, server, ["b.*"]).status_code == 201
    assert _post(personas, server, ["a.*"]).status_code == 200  # the same again: the live one
    third = _post(personas, server, ["c.*"])
    assert third.status_code == 409
    error = third.json()["error"]
    assert error["code"] == "server_limit" and "maxSubscriptions" in error["message"]
    assert Subscription.objects.filter(server=server).count() == 2
    entry = AuditEntry.objects.get(kind="subscription.limit_refused")
    assert entry.detail["code"] == "server_limit"


def test_the_per_user_subscription_limit(personas, server, settings):
    settings.MCPE_MAX_SUBSCRIPTIONS_PER_USER = 1
    approve_events(personas.alice, server, ["*"])
    assert _post(personas, server, ["a.*"]).status_code == 201
    refused = _post(personas, server, ["b.*"])
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "user_limit"
    assert "MCPE_MAX_SUBSCRIPTIONS_PER_USER" in error["message"]
    assert AuditEntry.objects.filter(kind="subscription.limit_refused").count() == 1


def test_pause_on_a_server_without_it_is_409_not_supported(personas):
    server = McpServer.objects.create(
        host=personas.acme,
        name="No pause",
        url="https://mcpe.example.test/mcp",
        status="active",
        capabilities={"mcpe": {"tools": FOUR}},
    )
    approve_events(personas.alice, server, ["*"])
    sub_id = _post(personas, server, ["a.*"]).json()["id"]
    for action in ("pause", "resume"):
        answer = personas.acme_api.post(f"/subscriptions/{sub_id}/{action}")
        assert answer.status_code == 409
        assert answer.json()["error"]["code"] == "not_supported"
        assert "events_pause" in answer.json()["error"]["message"]
    assert Subscription.objects.get(pk=sub_id).paused_at is None
    client = Client()
    client.force_login(personas.alice)
    page = client.get(f"/subscriptions/{sub_id}/").content.decode()
    assert "cannot pause subscriptions" in page and f"{sub_id}/pause" not in page


def test_a_subscription_the_host_does_not_bound_ends_after_the_default_ttl(
    personas, server, settings
):
    settings.MCPE_DEFAULT_TTL = 3600
    approve_events(personas.alice, server, ["*"])
    body = _post(personas, server, ["a.*"]).json()
    sub = Subscription.objects.get(pk=body["id"])
    expected = timezone.now() + timedelta(seconds=3600)
    assert abs((sub.expires_at - expected).total_seconds()) < 30
    sent = subscribe_arguments(sub)["expiresAt"]
    assert sent.endswith("Z") and "+" not in sent  # as the reference implementation's zod takes it
    # A bound the host gives is kept; without a default there is none.
    settings.MCPE_DEFAULT_TTL = 0
    unbounded = Subscription.objects.get(pk=_post(personas, server, ["b.*"]).json()["id"])
    assert unbounded.expires_at is None


def test_events_past_the_per_user_rate_are_not_forwarded_and_said_once(personas, server, settings):
    settings.MCPE_MAX_EVENTS_PER_MINUTE = 2
    host_endpoint_set(host=personas.acme, url="http://127.0.0.1:9/hook", actor=SYSTEM)
    approve_events(personas.alice, server, ["*"])
    sub = _sub(personas, server, remote_id="r1")

    def batch(prefix: str, n: int) -> None:
        mcpe_notification_take(
            _item(personas, server),
            "events/batch",
            {
                "subscriptionId": "r1",
                "events": [
                    {"id": f"{prefix}{i}", "type": "a.x", "data": {}, "metadata": {}}
                    for i in range(n)
                ],
            },
        )

    if time.time() % 60 > 50:  # both batches must fall in one minute (the budget's window)
        time.sleep(61 - time.time() % 60)
    batch("e", 3)
    batch("f", 2)  # the same minute: nothing more passes, and it is not said twice
    forwarded = HostDelivery.objects.filter(stream=sub.id, type="event.received")
    assert sorted(d.body["data"]["event"]["eventId"] for d in forwarded) == ["e0", "e1"]
    [gap] = HostDelivery.objects.filter(stream=sub.id, type="subscription.gap")
    assert gap.body["data"]["reason"] == "rate_limited"
    sub.refresh_from_db()
    assert sub.last_error == "rate_limited"
    assert "MCPE_MAX_EVENTS_PER_MINUTE (2)" in sub.last_error_message
    assert AuditEntry.objects.filter(kind="subscription.gap", subject_id=sub.id).exists()
