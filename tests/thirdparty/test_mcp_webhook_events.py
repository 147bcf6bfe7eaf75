"""The console against a server no one here wrote: ``mcp-webhook-events``
0.2.0 (ChatGPT dialect), a real process over Streamable HTTP. Registration,
event types, the callback challenge, a delivery verified by ``svix`` at the
host, filtering by arguments, refresh, and an unsubscribe the server really
sees: after it, publishing reaches nobody."""

from __future__ import annotations

import os

import pytest
from django.utils import timezone

from config import supervisor as sv
from outbox.services import host_endpoint_set
from subscriptions.models import RefreshAttempt, Subscription
from subscriptions.services import subscription_unsubscribe
from switchboard.models import McpServer
from tests.live import ARTIFACTS, free_port
from tests.subscriptions.support import (
    SYSTEM,
    HostReceiver,
    approve_events,
    make_subscription,
    wait_for,
)
from tests.thirdparty.mwe_server import events_for

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


@pytest.fixture(scope="module")
def mwe(tmp_path_factory):
    store = str(tmp_path_factory.mktemp("mwe") / "events.sqlite3")
    port = free_port()
    supervisor = sv.Supervisor(env={**os.environ, "PYTHONUNBUFFERED": "1"}, log_dir=ARTIFACTS)
    child = supervisor.start(
        "mcp-webhook-events",
        [sv.python(), "-m", "tests.thirdparty.mwe_server", "--port", str(port), "--store", store],
    )
    try:
        sv.wait_for_http(f"http://127.0.0.1:{port}/mcp", process=child.process, timeout=30)
        yield {"url": f"http://127.0.0.1:{port}/mcp", "store": store}
    finally:
        supervisor.stop_all()


@pytest.fixture
def host_receiver():
    receiver = HostReceiver()
    yield receiver
    receiver.close()


def _subscription(sub_id: str, status: str):
    def check():
        sub = Subscription.objects.filter(pk=sub_id).first()
        return sub if sub is not None and sub.status == status else None

    return check


def test_subscribe_deliver_refresh_and_unsubscribe_against_mcp_webhook_events(
    live, tpersonas, mwe, host_receiver
):
    api = tpersonas.acme_api
    events = events_for(None, mwe["store"])  # the library's own publisher, same store

    registered = api.post("/servers", {"name": "Ticket watcher", "url": mwe["url"]})
    assert registered.status_code == 201, registered.content
    body = registered.json()
    assert body["status"] == "active"
    assert body["capabilities"]["events"]["dialect"] == "chatgpt"  # top-level `events: {}`
    assert [t["name"] for t in body["event_types"]] == ["ticket.updated"]
    server = McpServer.objects.get(pk=body["id"])

    approve_events(tpersonas.alice, server, ["ticket.updated"])
    _, host_receiver.secret = host_endpoint_set(
        host=tpersonas.acme, url=host_receiver.url, actor=SYSTEM
    )
    created = api.post(
        "/subscriptions",
        {
            "user": tpersonas.alice.external_id,
            "server": server.id,
            "event": "ticket.updated",
            "arguments": {"ticket_id": "T-1"},
        },
    )
    assert created.status_code == 201, created.content
    sub = wait_for(_subscription(created.json()["id"], "active"), timeout=30, message="active")
    # The library subscribes only after our receiver echoed its signed challenge.
    held = events.active_subscriptions("ticket.updated")
    assert len(held) == 1 and held[0]["arguments"] == {"ticket_id": "T-1"}
    # SEP-3415 §"Subscription TTL": a positive ttlMs, clamped by the server (1 h minimum): the
    # refresh is scheduled from the refreshBefore it granted.
    assert sub.refresh_before is not None and sub.next_refresh_at < sub.refresh_before

    assert events.publish("ticket.updated", {"ticket_id": "T-2", "summary": "not ours"}) == 0
    assert (
        events.publish("ticket.updated", {"ticket_id": "T-1", "summary": "Customer replied"}) == 1
    )
    events.deliver_pending()
    got = wait_for(
        lambda: host_receiver.accepted("event.received"), timeout=30, message="forwarded"
    )
    assert len(got) == 1 and not host_receiver.rejected  # verified by svix, once
    event = got[0]["data"]["event"]
    assert event["name"] == "ticket.updated"
    assert event["data"] == {"ticket_id": "T-1", "summary": "Customer replied"}

    # Refresh with a new secret: the library takes the rotation (and challenges
    # the callback again when it wants to).
    refreshed_before = sub.last_refreshed_at
    assert api.post(f"/subscriptions/{sub.id}/rotate-secret").status_code == 200
    wait_for(
        lambda: Subscription.objects.get(pk=sub.id).last_refreshed_at != refreshed_before,
        timeout=30,
        message="refreshed",
    )
    assert Subscription.objects.get(pk=sub.id).status == "active"
    assert len(events.active_subscriptions("ticket.updated")) == 1

    answer = api.delete(f"/subscriptions/{sub.id}").json()
    assert answer["status"] == "revoked"
    assert answer["unsubscribe"]["state"] == "done", answer  # the library answered {}
    assert events.active_subscriptions("ticket.updated") == []  # it really forgot it
    assert events.publish("ticket.updated", {"ticket_id": "T-1", "summary": "too late"}) == 0
    # Nothing was queued, and a delivery run (synchronous) sends nothing.
    assert events.deliver_pending() == {"delivered": 0, "retrying": 0, "failed": 0}
    assert len(host_receiver.accepted("event.received")) == 1


def test_an_unsubscribe_for_an_event_type_the_server_dropped_counts_as_done(personas, mwe):
    """Case 51: this library answers -32602 "Unknown event name" for an
    event type it no longer lists; in the ChatGPT dialect that means gone."""
    server = McpServer.objects.create(
        host=personas.acme,
        name="Ticket watcher",
        url=mwe["url"],
        status="active",
        capabilities={"events": {}},
        events_dialect_detected="chatgpt",
        events_dialect_confirmed=True,
    )
    sub = make_subscription(
        personas.alice, server, event="ticket.deleted", arguments={}, status="revoked"
    )
    Subscription.objects.filter(pk=sub.pk).update(
        unsubscribe_state="pending", unsubscribe_next_at=timezone.now()
    )
    assert subscription_unsubscribe(subscription_id=sub.id) == "done"
    (attempt,) = RefreshAttempt.objects.filter(subscription=sub, kind="unsubscribe")
    assert attempt.ok and attempt.error_code == -32602  # what it said, and what it meant
