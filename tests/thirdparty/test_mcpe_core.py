"""The console against the MCPE implementation people run: ``@mcpe/core``
(``tests.peers.MCPE_PEER_SOURCE``), a real node process over Streamable HTTP, with a
real session worker holding the session and the Celery worker forwarding to
a host endpoint that verifies every delivery with ``svix``. What the server
did is read from its own control API (``/control/subscriptions``,
``/control/log``), never from ours."""

from __future__ import annotations

import time

import pytest
from django.test import Client

from outbox.models import HostDelivery
from subscriptions.models import Subscription
from switchboard.models import AuditEntry
from switchboard.services.servers import server_register
from tests.subscriptions.support import SYSTEM, HostReceiver, approve_events, wait_for
from tests.thirdparty.mcpe_peer import McpePeer, start_peers

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


@pytest.fixture(scope="module")
def peers():
    supervisor = start_peers("mcpe-peer")
    try:
        yield {
            # Upstream as it ships: no capability declared, pause on.
            "plain": McpePeer(supervisor, "mcpe-peer"),
            # Pause off (4 tools), and a declared capability with maxSubscriptions 2.
            "limited": McpePeer(
                supervisor,
                "mcpe-peer-limited",
                "--no-pause",
                "--advertise",
                "experimental",
                "--max-subscriptions",
                "2",
            ),
        }
    finally:
        supervisor.stop_all()


@pytest.fixture
def host_receiver():
    receiver = HostReceiver()
    yield receiver
    receiver.close()


def _register(tpersonas, peer: McpePeer, host_receiver, name: str):
    server = server_register(host=tpersonas.acme, name=name, url=peer.mcp_url, actor=SYSTEM)
    answer = tpersonas.acme_api.put("/host/endpoint", json={"url": host_receiver.url})
    host_receiver.secret = answer.json()["secret"]
    return server


def _subscribe(tpersonas, server, **body) -> Subscription:
    created = tpersonas.acme_api.post(
        "/subscriptions", json={"user": "alice", "server": server.id, **body}
    )
    assert created.status_code == 201, created.content
    return wait_for(
        lambda: Subscription.objects.filter(
            pk=created.json()["id"], status="active", remote_id__gt=""
        ).first(),
        timeout=30,
        message="subscribed on the server",
    )


def _forwarded(host_receiver, sub) -> list[str]:
    return [
        d["data"]["event"]["name"]
        for d in host_receiver.accepted("event.received")
        if d["data"]["subscription_id"] == sub.id
    ]


def _gaps(host_receiver, sub) -> list[dict]:
    return [
        d["data"]
        for d in host_receiver.accepted("subscription.gap")
        if d["data"]["subscription_id"] == sub.id
    ]


def _on_server(peer: McpePeer, remote_id: str) -> dict | None:
    return next((s for s in peer.subscriptions() if s["id"] == remote_id), None)


def test_subscribe_filter_pause_resume_update_session_loss_and_unsubscribe_on_mcpe_core(
    peers, live, tpersonas, host_receiver, session_worker
):
    peer = peers["plain"]
    server = _register(tpersonas, peer, host_receiver, "Issues (mcpe core)")
    shown = tpersonas.acme_api.get(f"/servers/{server.id}").json()
    assert shown["capabilities"]["mcpe"]["tools"] == [
        "events_subscribe",
        "events_unsubscribe",
        "events_list",
        "events_pause",
        "events_resume",
        "events_update",
    ]

    approve_events(tpersonas.alice, server, ["github.*"])
    sub = _subscribe(tpersonas, server, filter={"event_types": ["github.issue.*"], "tags": ["ops"]})
    [made] = peer.log("tool_call", tool="events_subscribe")
    assert made["arguments"]["filter"] == {"eventTypes": ["github.issue.*"], "tags": ["ops"]}
    assert made["arguments"]["expiresAt"].endswith("Z")  # MCPE_DEFAULT_TTL, as zod takes it
    there = _on_server(peer, sub.remote_id)
    assert there is not None and there["status"] == "active"
    session = peer.stream_open()

    # Filters: only the matching event reaches the host, once.
    peer.publish("github.issue.opened", tags=["ops"], priority="high")
    peer.publish("github.push", tags=["ops"])
    peer.publish("github.issue.closed", tags=["other"])
    wait_for(lambda: _forwarded(host_receiver, sub) == ["github.issue.opened"], message="the match")

    # Several checks later (MCPE_CHECK_INTERVAL is 1 s here): still one
    # subscription on the server, subscribed once.
    time.sleep(3.5)  # three or more events_list checks
    assert len(peer.log("tool_call", tool="events_list")) >= 3
    assert [s["id"] for s in peer.subscriptions()] == [sub.remote_id]
    assert len(peer.log("tool_call", tool="events_subscribe")) == 1
    peer.publish("github.issue.edited", tags=["ops"])
    wait_for(
        lambda: _forwarded(host_receiver, sub)[-1:] == ["github.issue.edited"], message="second"
    )
    assert _forwarded(host_receiver, sub) == ["github.issue.opened", "github.issue.edited"]

    # Pause reaches the server: it says paused and sends nothing.
    assert tpersonas.acme_api.post(f"/subscriptions/{sub.id}/pause").status_code == 200
    wait_for(lambda: _on_server(peer, sub.remote_id)["status"] == "paused", message="paused there")
    [paused] = peer.log("tool_result", tool="events_pause")
    assert paused["result"] == {"subscriptionId": sub.remote_id, "status": "paused"}
    assert peer.publish("github.issue.reopened", tags=["ops"])["matched"] == 0
    # Resume: active there again, and events flow.
    assert tpersonas.acme_api.post(f"/subscriptions/{sub.id}/resume").status_code == 200
    wait_for(lambda: _on_server(peer, sub.remote_id)["status"] == "active", message="resumed")
    assert len(peer.log("tool_call", tool="events_resume")) == 1

    # A new filter reaches the server with events_update.
    changed = tpersonas.acme_api.patch(
        f"/subscriptions/{sub.id}", json={"filter": {"event_types": ["github.*"]}}
    )
    assert changed.status_code == 200, changed.content
    wait_for(
        lambda: _on_server(peer, sub.remote_id)["filter"] == {"eventTypes": ["github.*"]},
        message="the filter changed on the server",
    )
    assert len(peer.log("tool_call", tool="events_update")) == 1
    peer.publish("github.push")
    wait_for(lambda: _forwarded(host_receiver, sub)[-1:] == ["github.push"], message="widened")

    # The server closes the session: a new one, the subscription made
    # again there, and the host told once that events may be gone.
    lost = sub.remote_id
    peer.control("POST", f"sessions/{session}/close")
    renewed = wait_for(
        lambda: (
            Subscription.objects.filter(pk=sub.pk, status="active")
            .exclude(remote_id__in=["", lost])
            .first()
        ),
        timeout=30,
        message="made again on a new session",
    )
    assert [s["id"] for s in peer.subscriptions()] == [renewed.remote_id]
    assert _on_server(peer, renewed.remote_id)["filter"] == {"eventTypes": ["github.*"]}
    wait_for(lambda: _gaps(host_receiver, sub), message="the host told of the gap")
    peer.stream_open()
    peer.publish("github.release")
    wait_for(lambda: _forwarded(host_receiver, sub)[-1:] == ["github.release"], message="flowing")
    time.sleep(2)  # more checks on the new session: nothing more to tell
    [gap] = _gaps(host_receiver, sub)
    assert gap["reason"] == "session_lost" and gap["cursor"] is None
    assert len(peer.subscriptions()) == 1
    client = Client()
    client.force_login(tpersonas.alice)
    page = client.get(f"/subscriptions/{sub.id}/").content.decode()
    assert "events the server emitted meanwhile are gone upstream" in page
    # Nothing was forwarded twice.
    names = [
        d.body["data"]["event"]["eventId"]
        for d in HostDelivery.objects.filter(stream=sub.id, type="event.received")
    ]
    assert len(names) == len(set(names)) == 4

    # Revoke: events_unsubscribe, and the server no longer holds it.
    assert tpersonas.acme_api.delete(f"/subscriptions/{sub.id}").status_code == 200
    wait_for(lambda: peer.subscriptions() == [], message="removed on the server")
    [gone] = peer.log("tool_result", tool="events_unsubscribe")
    assert gone["result"] == {"success": True}
    wait_for(
        lambda: Subscription.objects.get(pk=sub.pk).unsubscribe_state == "done",
        message="recorded as taken down",
    )
    assert not host_receiver.rejected


def test_a_server_without_pause_and_with_max_subscriptions_is_held_to_them(
    peers, live, tpersonas, host_receiver, session_worker
):
    peer = peers["limited"]
    server = _register(tpersonas, peer, host_receiver, "Limited (mcpe core)")
    mcpe = server.capabilities["mcpe"]
    assert mcpe["tools"] == [
        "events_subscribe",
        "events_unsubscribe",
        "events_list",
        "events_update",
    ]
    assert mcpe["max_subscriptions"] == 2 and mcpe["features"]["pause"] is False
    approve_events(tpersonas.alice, server, ["*"])
    first = _subscribe(tpersonas, server, filter={"event_types": ["a.*"]})
    _subscribe(tpersonas, server, filter={"event_types": ["b.*"]})
    wait_for(lambda: len(peer.subscriptions()) == 2, message="both on the server")

    third = tpersonas.acme_api.post(
        "/subscriptions",
        json={"user": "alice", "server": server.id, "filter": {"event_types": ["c.*"]}},
    )
    assert third.status_code == 409, third.content
    error = third.json()["error"]
    assert error["code"] == "server_limit" and "maxSubscriptions" in error["message"]
    assert AuditEntry.objects.filter(
        kind="subscription.limit_refused", server_id=server.id
    ).exists()

    paused = tpersonas.acme_api.post(f"/subscriptions/{first.id}/pause")
    assert paused.status_code == 409 and paused.json()["error"]["code"] == "not_supported"
    assert "events_pause" in paused.json()["error"]["message"]
    time.sleep(1.5)  # a check or more
    assert len(peer.log("tool_call", tool="events_subscribe")) == 2  # the third never left
    assert peer.log("tool_call", tool="events_pause") == []
    assert all(s["status"] == "active" for s in peer.subscriptions())
