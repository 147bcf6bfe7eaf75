"""MCPE without the network: recognising the servers, what we ask of them
(never narrower than the host's own filter), the reconcile plan, consent
for patterns. The live path is in test_mcpe_live.py."""

from __future__ import annotations

import pytest
from django.utils import timezone

from subscriptions.models import Mode, Subscription, UnsubscribeState, mcpe_session_item
from subscriptions.services.mcpe import (
    Step,
    _config_key,
    mcpe_plan,
    server_filter,
    subscribe_arguments,
)
from switchboard.mcp import ServerCapabilities
from switchboard.mcp.mcpe import MCPE_TOOLS, mcpe_capability
from switchboard.models import McpServer
from switchboard.services.server_discovery import _mcpe_read
from tests.subscriptions.support import approve_events, make_subscription

MCPE_CAPS = {"mcpe": {"tools": list(MCPE_TOOLS)}}


@pytest.fixture
def mcpe_server(personas):
    return McpServer.objects.create(
        host=personas.acme,
        name="Alerts",
        url="https://mcpe.example.test/mcp",
        status="active",
        capabilities=MCPE_CAPS,
    )


def test_six_tools_make_an_mcpe_server_and_five_do_not():
    assert mcpe_capability([*MCPE_TOOLS, "other"]) == {"tools": list(MCPE_TOOLS)}
    assert mcpe_capability(list(MCPE_TOOLS[:-1])) is None
    declared = {
        "deliveryChannels": ["realtime", "cron"],
        "features": {"pause": True},
        "maxSubscriptions": 5,
    }
    assert mcpe_capability(MCPE_TOOLS, declared) == {
        "tools": list(MCPE_TOOLS),
        "delivery_channels": ["realtime", "cron"],
        "features": {"pause": True},
        "max_subscriptions": 5,
    }


def test_an_mcpe_events_capability_under_experimental_is_not_read_as_mcp_events():
    declared = {"deliveryChannels": ["realtime"], "features": {"wildcards": True}}
    caps = ServerCapabilities(
        events=declared, conversation_events=None, hooks=None, sources={"events": "experimental"}
    )
    read, mcpe = _mcpe_read(caps, list(MCPE_TOOLS))
    assert read.events is None and mcpe["delivery_channels"] == ["realtime"]
    # An MCP Events capability beside MCPE tools stays what it is.
    events = ServerCapabilities(
        events={"listChanged": True},
        conversation_events=None,
        hooks=None,
        sources={"events": "experimental"},
    )
    kept, mcpe = _mcpe_read(events, list(MCPE_TOOLS))
    assert kept.events == {"listChanged": True} and mcpe is not None


@pytest.mark.parametrize(
    ("host_filter", "sent"),
    [
        ({}, {}),
        ({"event_types": ["*"]}, {}),  # upstream: a bare `*` matches nothing
        ({"event_types": ["alert.*", "*"]}, {}),
        ({"event_types": ["alert.*"]}, {"eventTypes": ["alert.*"]}),
        ({"priority": ["high", "critical"]}, {"priority": ["high", "critical"]}),
        # An event without a priority counts as normal here; upstream it never matches.
        ({"priority": ["normal", "high"]}, {}),
        ({"tags": ["ci"]}, {"tags": ["ci"]}),
    ],
)
def test_what_the_server_is_asked_is_never_narrower_than_our_filter(host_filter, sent):
    assert server_filter(host_filter) == sent


def test_the_plan_brings_the_server_to_what_we_want(personas, mcpe_server):
    approve_events(personas.alice, mcpe_server, ["*"])

    def mcpe_sub(n, **fields):
        return make_subscription(
            personas.alice, mcpe_server, event="", arguments={"n": n}, mode=Mode.MCPE, **fields
        )

    new = mcpe_sub(1, status="pending")
    forgotten = mcpe_sub(2, remote_id="r-gone")
    paused = mcpe_sub(3, remote_id="r-3", paused_at=timezone.now())
    changed = mcpe_sub(4, remote_id="r-4", filter={"tags": ["ci"]})
    steady = mcpe_sub(5, remote_id="r-5")
    Subscription.objects.filter(pk=steady.pk).update(
        remote_config=_config_key(subscribe_arguments(steady))
    )
    Subscription.objects.filter(pk=paused.pk).update(
        remote_config=_config_key(subscribe_arguments(paused))
    )
    revoked = mcpe_sub(
        6, remote_id="r-6", status="revoked", unsubscribe_state=UnsubscribeState.PENDING
    )
    gone = mcpe_sub(
        7, remote_id="r-7", status="revoked", unsubscribe_state=UnsubscribeState.PENDING
    )

    remote = {"r-3": "active", "r-4": "active", "r-5": "active", "r-6": "active"}
    steps = mcpe_plan(mcpe_session_item(personas.alice.id, mcpe_server.id), remote)
    by_sub = {(s.subscription_id, s.action) for s in steps}
    assert (new.pk, "subscribe") in by_sub
    assert (forgotten.pk, "subscribe") in by_sub  # the server forgot it
    assert (paused.pk, "pause") in by_sub
    assert (changed.pk, "update") in by_sub
    assert not any(s.subscription_id == steady.pk for s in steps)
    assert Step("unsubscribe", revoked.pk, {"subscriptionId": "r-6"}) in steps
    assert not any(s.subscription_id == gone.pk for s in steps)
    assert Subscription.objects.get(pk=gone.pk).unsubscribe_state == UnsubscribeState.DONE


def test_without_an_event_only_an_mcpe_server_takes_a_subscription(personas, mcpe_server):
    from tests.subscriptions.support import make_event_server

    plain = make_event_server(personas.acme)
    answer = personas.acme_api.post("/subscriptions", json={"user": "alice", "server": plain.id})
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "event"
    made = personas.acme_api.post(
        "/subscriptions",
        json={"user": "alice", "server": mcpe_server.id, "filter": {"event_types": ["alert.*"]}},
    )
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["mode"] == "mcpe" and body["event"] is None and body["status"] == "pending_consent"
    again = personas.acme_api.post(
        "/subscriptions",
        json={"user": "alice", "server": mcpe_server.id, "filter": {"event_types": ["alert.*"]}},
    )
    assert again.status_code == 200 and again.json()["id"] == body["id"]


def test_consent_for_an_mcpe_server_names_patterns_and_covers_filters(personas, mcpe_server):
    bad = personas.acme_api.post(
        "/consent/requests",
        json={
            "user": "alice",
            "server": mcpe_server.id,
            "scopes": ["events"],
            "event_types": ["git*"],
        },
    )
    assert bad.status_code == 422, bad.content
    assert bad.json()["error"]["field"] == "event_types[0]"

    approve_events(personas.alice, mcpe_server, ["github.*"])
    covered = personas.acme_api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": mcpe_server.id,
            "filter": {"event_types": ["github.issue.*"]},
        },
    ).json()
    wider = personas.acme_api.post(
        "/subscriptions",
        json={"user": "alice", "server": mcpe_server.id, "filter": {"event_types": ["*"]}},
    ).json()
    assert covered["status"] == "pending" and wider["status"] == "pending_consent"


def test_the_pages_name_an_mcpe_subscription_by_its_patterns(personas, mcpe_server):
    from django.test import Client

    sub = make_subscription(
        personas.alice,
        mcpe_server,
        event="",
        arguments={},
        mode=Mode.MCPE,
        filter={"event_types": ["alert.*", "github.issue.opened"]},
        remote_id="r-1",
    )
    client = Client()
    client.force_login(personas.alice)
    listing = client.get("/subscriptions/").content.decode()
    assert "all alert events; github.issue.opened events" in listing
    detail = client.get(f"/subscriptions/{sub.id}/").content.decode()
    assert "<dt>Managed</dt>" in detail and "MCPE tools" in detail
    assert "<dt>Session</dt>" in detail


# --- handler policy --------------------------------------------------------------------


def post_mcpe(personas, server, handler, **extra):
    return personas.acme_api.post(
        "/subscriptions",
        json={"user": "alice", "server": server.id, "handler": handler, **extra},
    )


def ledger(kind):
    from switchboard.models import AuditEntry

    return list(AuditEntry.objects.filter(kind=kind).values_list("detail", flat=True))


def test_a_bash_handler_is_refused_until_staff_switch_it_on(personas, mcpe_server):
    from django.test import Client

    bash = {"type": "bash", "command": "notify-send", "args": ["$MCPE_EVENT_TYPE"], "input": "env"}
    refused = post_mcpe(personas, mcpe_server, bash)
    assert refused.status_code == 403, refused.content
    assert refused.json()["error"]["code"] == "handler_not_allowed"
    assert refused.json()["error"]["field"] == "handler.type"
    assert not Subscription.objects.exists()
    assert ledger("subscription.handler_refused")[0]["handler_type"] == "bash"

    admin = Client()
    admin.force_login(personas.admin)
    page = admin.get(f"/staff/servers/{mcpe_server.id}/").content.decode()
    assert "allow bash handlers" in page and "runs on its own machine" in page
    admin.post(f"/staff/servers/{mcpe_server.id}/handlers", {"mcpe_bash_handlers": "1"})
    mcpe_server.refresh_from_db()
    assert mcpe_server.mcpe_bash_handlers

    made = post_mcpe(personas, mcpe_server, bash)
    assert made.status_code == 201, made.content
    assert made.json()["handler"] == bash
    assert ledger("subscription.handler_allowed")[0]["handler_type"] == "bash"
    sub = Subscription.objects.get(pk=made.json()["id"])
    assert subscribe_arguments(sub)["handler"] == bash  # what the server is handed
    staff_list = admin.get("/staff/subscriptions/").content.decode()
    assert 'data-handler="bash"' in staff_list


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("http://hooks.example.com/events", "invalid"),
        ("https://127.0.0.1/events", "blocked_target"),
        ("https://10.1.2.3/events", "blocked_target"),
        ("https://[::ffff:192.168.0.1]/events", "blocked_target"),
    ],
)
def test_a_webhook_handler_must_be_https_to_a_public_address(personas, mcpe_server, url, code):
    answer = post_mcpe(personas, mcpe_server, {"type": "webhook", "url": url})
    assert answer.status_code == 422, answer.content
    assert answer.json()["error"]["field"] == "handler.url"
    assert answer.json()["error"]["code"] == code
    assert ledger("subscription.handler_refused")


def test_an_agent_handler_runs_only_under_consent_that_showed_it(personas, mcpe_server):
    from django.test import Client

    from consent.models import Grant
    from consent.services import grant_approve
    from switchboard.actors import Actor

    agent = {"type": "agent", "systemPrompt": "Summarise the alert", "tools": ["slack_reply"]}
    # Not shown to the user: refused.
    refused = post_mcpe(personas, mcpe_server, agent)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "handler_not_allowed"

    asked = personas.acme_api.post(
        "/consent/requests",
        json={
            "user": "alice",
            "server": mcpe_server.id,
            "scopes": ["events"],
            "event_types": ["alert.*"],
            "handlers": [agent],
        },
    )
    assert asked.status_code in (200, 201), asked.content
    user = Client()
    user.force_login(personas.alice)
    page = user.get(f"/consent/{asked.json()['id']}/").content.decode()
    assert "may also start an agent on your behalf" in page
    assert "told “Summarise the alert”" in page and "slack_reply" in page

    grant = Grant.objects.get(user=personas.alice, server=mcpe_server, scope="events")
    grant_approve(grant=grant, actor=Actor.for_user(personas.alice), event_types=["alert.*"])
    made = post_mcpe(personas, mcpe_server, agent, filter={"event_types": ["alert.*"]})
    assert made.status_code == 201, made.content
    assert made.json()["handler"] == {
        "type": "agent",
        "systemPrompt": "Summarise the alert",
        "tools": ["slack_reply"],
    }
    assert made.json()["status"] == "pending"
    other = post_mcpe(
        personas,
        mcpe_server,
        {**agent, "systemPrompt": "Delete everything"},
        filter={"event_types": ["alert.*"]},
    )
    assert other.status_code == 403  # not the handler the user saw


def test_handlers_need_an_mcpe_server(personas, mcpe_server):
    from tests.subscriptions.support import make_event_server

    plain = make_event_server(personas.acme)
    asked = personas.acme_api.post(
        "/consent/requests",
        json={
            "user": "alice",
            "server": plain.id,
            "scopes": ["events"],
            "handlers": [{"type": "agent"}],
        },
    )
    assert asked.status_code == 422 and asked.json()["error"]["field"] == "handlers"
    bash = personas.acme_api.post(
        "/consent/requests",
        json={
            "user": "alice",
            "server": mcpe_server.id,
            "scopes": ["events"],
            "handlers": [{"type": "bash", "command": "rm"}],
        },
    )
    assert bash.status_code == 422 and bash.json()["error"]["field"] == "handlers[0].type"
    answer = personas.acme_api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": plain.id,
            "event": "build.finished",
            "arguments": {"repo": "a"},
            "handler": {"type": "webhook", "url": "https://example.com/x"},
        },
    )
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "handler"


# --- consent and calls in flight ---------------------------------------------------------


def _pending_mcpe(personas, server):
    approve_events(personas.alice, server, ["alert.*"])
    sub = make_subscription(
        personas.alice,
        server,
        event="",
        arguments={},
        mode=Mode.MCPE,
        status="pending",
        filter={"event_types": ["alert.*"]},
    )
    item = mcpe_session_item(personas.alice.id, server.id)
    [step] = mcpe_plan(item, {})
    assert (step.action, step.subscription_id) == ("subscribe", sub.pk)
    return sub, item, step


def test_a_subscription_the_server_made_after_it_ended_here_is_taken_down(personas, mcpe_server):
    from subscriptions.services import subscription_revoke
    from subscriptions.services.mcpe import mcpe_step_done, mcpe_still_wanted
    from tests.subscriptions.support import SYSTEM

    sub, item, subscribe = _pending_mcpe(personas, mcpe_server)
    # Revoked while the subscribe was in flight (nothing to unsubscribe yet)...
    subscription_revoke(subscription=sub, actor=SYSTEM)
    # ...and then the server answers it: it holds a subscription of ours.
    relist = mcpe_step_done(subscribe, {"subscriptionId": "r-late", "status": "active"}, None)
    assert relist  # taken down at once, not at the next check
    sub.refresh_from_db()
    assert (sub.status, sub.remote_id) == ("revoked", "r-late")
    assert sub.unsubscribe_state == UnsubscribeState.PENDING
    assert mcpe_still_wanted(item)  # the session stays to take it down
    assert mcpe_plan(item, {"r-late": "active"}) == [
        Step("unsubscribe", sub.pk, {"subscriptionId": "r-late"})
    ]
    mcpe_step_done(
        Step("unsubscribe", sub.pk, {"subscriptionId": "r-late"}), {"success": True}, None
    )
    sub.refresh_from_db()
    assert (sub.status, sub.unsubscribe_state) == ("revoked", UnsubscribeState.DONE)
    assert not mcpe_still_wanted(item)


def test_a_call_consent_stopped_is_shown_on_its_subscription(personas, mcpe_server):
    from consent.enforce import CONSENT_UNAVAILABLE, NO_CONSENT, Verdict
    from subscriptions.services.mcpe import mcpe_step_done, mcpe_step_stopped

    sub, item, subscribe = _pending_mcpe(personas, mcpe_server)
    mcpe_step_stopped(subscribe, Verdict(False, CONSENT_UNAVAILABLE))
    sub.refresh_from_db()
    assert (sub.status, sub.last_error) == ("pending", CONSENT_UNAVAILABLE)
    assert "nothing was sent" in sub.last_error_message
    shown = personas.acme_api.get(f"/subscriptions/{sub.pk}").json()
    assert shown["last_error"] == CONSENT_UNAVAILABLE
    mcpe_step_stopped(subscribe, Verdict(False, NO_CONSENT))
    sub.refresh_from_db()
    assert sub.last_error == NO_CONSENT and "withdrawn" in sub.last_error_message
    # Once a call for it goes through, the subscription no longer says so.
    mcpe_step_done(subscribe, {"subscriptionId": "r-1", "status": "active"}, None)
    sub.refresh_from_db()
    assert (sub.status, sub.last_error, sub.last_error_message) == ("active", "", "")
