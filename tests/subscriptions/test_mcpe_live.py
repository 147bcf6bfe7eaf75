"""Subscriptions on an MCPE server (docs/host-integration.md): the reference server's
MCPE surface over Streamable HTTP, a real session worker holding the
session, the Celery worker forwarding to a host endpoint that verifies every
delivery with ``svix``."""

from __future__ import annotations

import pytest

from outbox.models import HostDelivery
from subscriptions.models import Subscription, mcpe_session_item
from subscriptions.services.mcpe import mcpe_notification_take
from tests.subscriptions.support import SYSTEM, approve_events, wait_for

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


@pytest.fixture
def mcpe_server(live, tpersonas, refserver, host_receiver):
    from switchboard.services.servers import server_register

    server = server_register(
        host=tpersonas.acme, name="Alerts", url=refserver.mcpe_url, actor=SYSTEM
    )
    answer = tpersonas.acme_api.put("/host/endpoint", json={"url": host_receiver.url})
    host_receiver.secret = answer.json()["secret"]
    return server


def calls(refserver, name=None) -> list[dict]:
    found = refserver.control("GET", "mcpe/calls")["calls"]
    return [c for c in found if name is None or c["name"] == name]


def emit(refserver, type_, **metadata):
    return refserver.control(
        "POST", "mcpe/emit", {"type": type_, "data": {"summary": type_}, "metadata": metadata}
    )


def stream_open(refserver):
    """The session's GET stream (which carries the events) is open."""
    wait_for(
        lambda: any(s["getStream"] for s in refserver.control("GET", "mcpe/sessions")["sessions"]),
        message="the MCPE session's GET stream",
    )


def outboxed(sub) -> list[str]:
    """What the outbox holds for the host on this subscription, in arrival order."""
    return [
        d.body["data"]["event"]["name"]
        for d in HostDelivery.objects.filter(stream=sub.id, type="event.received").order_by("seq")
    ]


def forwarded(host_receiver) -> list[str]:
    return [d["data"]["event"]["name"] for d in host_receiver.accepted("event.received")]


def subscribe(tpersonas, server, **body) -> Subscription:
    created = tpersonas.acme_api.post(
        "/subscriptions", json={"user": "alice", "server": server.id, **body}
    )
    assert created.status_code == 201, created.content
    assert created.json()["mode"] == "mcpe" and created.json()["event"] is None
    return wait_for(
        lambda: Subscription.objects.filter(
            pk=created.json()["id"], status="active", remote_id__gt=""
        ).first(),
        timeout=30,
        message="subscribed on the server",
    )


def test_an_mcpe_server_is_recognised_by_its_tools(mcpe_server, tpersonas):
    shown = tpersonas.acme_api.get(f"/servers/{mcpe_server.id}").json()
    assert shown["capabilities"]["mcpe"]["tools"] == [
        "events_subscribe",
        "events_unsubscribe",
        "events_list",
        "events_pause",
        "events_resume",
        "events_update",
    ]
    assert not shown["capabilities"].get("events")  # not an MCP Events server
    assert shown["event_types"] == []


def test_exactly_the_matching_events_reach_the_host_and_pause_resume_update_revoke_go_through_the_tools(
    mcpe_server, tpersonas, refserver, host_receiver, session_worker
):
    approve_events(tpersonas.alice, mcpe_server, ["alert.*"])
    sub = subscribe(
        tpersonas, mcpe_server, filter={"event_types": ["alert.*"], "priority": ["critical"]}
    )
    [made] = calls(refserver, "events_subscribe")
    assert made["arguments"]["filter"] == {"eventTypes": ["alert.*"], "priority": ["critical"]}
    stream_open(refserver)

    emit(refserver, "alert.disk", priority="critical", tags=["ops"])
    emit(refserver, "alert.disk", priority="low")
    emit(refserver, "deploy.done", priority="critical")
    wait_for(lambda: forwarded(host_receiver) == ["alert.disk"], message="the one that matches")
    event = host_receiver.accepted("event.received")[0]["data"]["event"]
    assert event["metadata"]["priority"] == "critical" and event["metadata"]["tags"] == ["ops"]
    assert event["eventId"] and event["trust"] == "untrusted"
    assert not host_receiver.rejected

    # Pause: the server is told, nothing arrives; resume: it flows again.
    assert tpersonas.acme_api.post(f"/subscriptions/{sub.id}/pause").status_code == 200
    wait_for(lambda: calls(refserver, "events_pause"), message="events_pause called")
    # The paused subscription is not sent the event at all (the server says
    # whom it delivered to), so nothing can reach the host.
    assert emit(refserver, "alert.cpu", priority="critical")["delivered"] == []
    assert forwarded(host_receiver) == ["alert.disk"]
    assert tpersonas.acme_api.post(f"/subscriptions/{sub.id}/resume").status_code == 200
    wait_for(lambda: calls(refserver, "events_resume"), message="events_resume called")
    emit(refserver, "alert.net", priority="critical")
    wait_for(lambda: forwarded(host_receiver)[-1:] == ["alert.net"], message="flowing again")

    # A new filter goes to the server with events_update.
    changed = tpersonas.acme_api.patch(
        f"/subscriptions/{sub.id}", json={"filter": {"event_types": ["alert.*"], "tags": ["ops"]}}
    )
    assert changed.status_code == 200
    update = wait_for(lambda: calls(refserver, "events_update"), message="events_update")[0]
    assert update["arguments"]["filter"] == {"eventTypes": ["alert.*"], "tags": ["ops"]}

    # Revoke: events_unsubscribe with the server's id.
    remote_id = Subscription.objects.get(pk=sub.pk).remote_id
    assert tpersonas.acme_api.delete(f"/subscriptions/{sub.id}").status_code == 200
    done = wait_for(lambda: calls(refserver, "events_unsubscribe"), message="unsubscribed")
    assert done[0]["arguments"] == {"subscriptionId": remote_id}
    wait_for(
        lambda: Subscription.objects.get(pk=sub.pk).unsubscribe_state == "done",
        message="recorded as taken down",
    )


def test_the_server_expiring_it_is_shown_and_the_host_told(
    mcpe_server, tpersonas, refserver, host_receiver, session_worker
):
    # The host refuses the first notice once: it comes again by the retry
    # schedule (5 s), after the second, as it can when several workers send.
    host_receiver.responses_for["subscription.updated"] = [(503, {})]
    approve_events(tpersonas.alice, mcpe_server, ["*"])
    sub = subscribe(tpersonas, mcpe_server)
    assert calls(refserver, "events_subscribe")[0]["arguments"]["filter"] == {}  # `*`: no filter
    # Expired only once the "active" notice was refused, so that the refusal
    # falls on it and not on the second.
    wait_for(lambda: not host_receiver.responses_for["subscription.updated"], message="refused")
    refserver.control("POST", "mcpe/expire", {"subscriptionId": sub.remote_id})
    wait_for(lambda: Subscription.objects.get(pk=sub.pk).status == "expired", message="expired")

    def notices() -> list[dict]:
        return host_receiver.accepted("subscription.updated")

    # The host is told both changes, here out of order (docs/host-integration.md,
    # "Answering, retries and order"); the body's `timestamp`, fixed when the
    # change was recorded and kept by the retry, puts them in the order they
    # happened.
    wait_for(lambda: len(notices()) == 2, message="told it went active, then expired")
    assert [n["data"]["status"] for n in notices()] == ["expired", "active"]
    in_order = sorted(notices(), key=lambda n: n["timestamp"])
    assert [(n["data"]["previous_status"], n["data"]["status"]) for n in in_order] == [
        ("pending", "active"),
        ("active", "expired"),
    ], in_order


def test_a_lost_session_is_reopened_and_the_subscription_made_again_without_doubles(
    mcpe_server, tpersonas, refserver, host_receiver, session_worker
):
    approve_events(tpersonas.alice, mcpe_server, ["alert.*"])
    sub = subscribe(tpersonas, mcpe_server, filter={"event_types": ["alert.*"]})
    stream_open(refserver)
    emit(refserver, "alert.one")
    wait_for(lambda: forwarded(host_receiver) == ["alert.one"], message="the first")
    first_remote = sub.remote_id

    refserver.control("POST", "mcpe/drop-sessions", {})
    # On a new session, events_list no longer shows it: subscribed again.
    renewed = wait_for(
        lambda: (
            Subscription.objects.filter(pk=sub.pk)
            .exclude(remote_id=first_remote)
            .exclude(remote_id="")
            .first()
        ),
        timeout=30,
        message="made again on the new session",
    )
    assert renewed.status == "active"
    stream_open(refserver)
    emit(refserver, "alert.two")
    emit(refserver, "alert.three")
    # The outbox keeps arrival order: once the last one is in, anything sent
    # twice would stand before it.
    wait_for(lambda: outboxed(sub)[-1:] == ["alert.three"], message="flowing on the new session")
    assert outboxed(sub) == ["alert.one", "alert.two", "alert.three"]  # nothing twice


def test_a_filter_wider_than_the_consent_waits(mcpe_server, tpersonas, refserver, session_worker):
    approve_events(tpersonas.alice, mcpe_server, ["github.issue.*"])
    created = tpersonas.acme_api.post(
        "/subscriptions",
        json={"user": "alice", "server": mcpe_server.id, "filter": {"event_types": ["github.*"]}},
    )
    assert created.status_code == 201 and created.json()["status"] == "pending_consent"
    narrower = tpersonas.acme_api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": mcpe_server.id,
            "filter": {"event_types": ["github.issue.opened"]},
        },
    )
    assert narrower.json()["status"] in ("pending", "active")
    # One reconcile subscribes every subscription the session serves; the
    # uncovered one waits for consent and is not among them.
    wait_for(
        lambda: Subscription.objects.filter(pk=narrower.json()["id"], status="active").exists(),
        message="the covered one subscribed",
    )
    [made] = calls(refserver, "events_subscribe")  # only the covered one
    assert made["arguments"]["filter"] == {"eventTypes": ["github.issue.opened"]}


def test_a_batch_fans_into_single_events(
    mcpe_server, tpersonas, refserver, host_receiver, session_worker
):
    approve_events(tpersonas.alice, mcpe_server, ["*"])
    sub = subscribe(tpersonas, mcpe_server)
    mcpe_notification_take(
        mcpe_session_item(sub.user_id, sub.server_id),
        "events/batch",
        {
            "subscriptionId": sub.remote_id,
            "events": [
                {
                    "id": f"b{n}",
                    "type": "alert.x",
                    "data": {"n": n},
                    "metadata": {"timestamp": "2026-11-25T10:00:00Z"},
                }
                for n in range(3)
            ],
        },
    )
    wait_for(lambda: len(forwarded(host_receiver)) == 3, message="three single events")
    ids = [d["data"]["event"]["eventId"] for d in host_receiver.accepted("event.received")]
    assert sorted(ids) == ["b0", "b1", "b2"]
