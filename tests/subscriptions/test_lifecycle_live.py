"""End to end against real processes: the reference MCP server, daphne (our
receiver), a Celery worker and beat, PostgreSQL/Redis, and a host endpoint
that verifies with the ``svix`` library."""

from __future__ import annotations

import time

import httpx
import pytest

from outbox.models import HostDelivery
from subscriptions.models import ReceivedEvent, RefreshAttempt, Subscription
from switchboard.services.servers import server_register
from tests.subscriptions.support import (
    SYSTEM,
    HostReceiver,
    approve_events,
    reference_server_for_alice,
    signed,
    wait_for,
)

pytestmark = pytest.mark.processes


@pytest.fixture
def setup(live, tpersonas, refserver, host_receiver):
    events = ["build.finished", "ticket.created"]
    return reference_server_for_alice(tpersonas, refserver, host_receiver, events, "Reference")


def _status(sub_id: str, status: str):
    def check():
        sub = Subscription.objects.get(pk=sub_id)
        return sub if sub.status == status else None

    return check


def _subscribes(refserver, name: str) -> list[dict]:
    return [
        r
        for r in refserver.control("GET", "received?kinds=subscribe")["subscribe"]
        if r["name"] == name
    ]


def _remote(refserver, sub: Subscription) -> dict | None:
    listing = refserver.control("GET", "subscriptions")["subscriptions"]
    return next((s for s in listing if s["id"] == sub.remote_id), None)


def _event_ids(receiver: HostReceiver) -> list[str]:
    return [r["data"]["event"]["eventId"] for r in receiver.accepted("event.received")]


@pytest.mark.sqlite  # web, worker and beat writing one SQLite file, end to end
def test_the_full_webhook_lifecycle(setup, tpersonas, refserver, host_receiver):
    api = tpersonas.acme_api
    server = setup
    created = api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": server.id,
            "event": "build.finished",
            "arguments": {"repo": "acme/app"},
            "ttl_ms": 1500,
        },
    )
    assert created.status_code == 201, created.content
    sub_id = created.json()["id"]

    # subscribe → verification echo → active, with the id bound.
    sub = wait_for(_status(sub_id, "active"), message="subscription active")
    assert sub.remote_id and sub.verified_at
    first = _subscribes(refserver, "build.finished")[0]
    assert first["delivery"]["mode"] == "webhook"
    assert first["delivery"]["url"].endswith(f"/webhooks/mcp/{sub.token}")
    assert first["cursor"] is None and first["ttlMs"] == 1500
    assert first["arguments"] == {"repo": "acme/app"}

    # events arrive, are stored once and forwarded to the host (svix verifies).
    emitted = [
        refserver.control(
            "POST", "emit", {"name": "build.finished", "data": {"repo": "acme/app", "status": s}}
        )
        for s in ("success", "failure")
    ]
    refserver.control(
        "POST", "emit", {"name": "build.finished", "data": {"repo": "other/x", "status": "success"}}
    )
    wait_for(lambda: len(_event_ids(host_receiver)) >= 2, message="events forwarded")
    # Webhook deliveries may arrive, and be forwarded, in any order (the spec says
    # so); each must arrive exactly once.
    assert sorted(_event_ids(host_receiver)) == sorted(e["eventId"] for e in emitted)
    assert not host_receiver.rejected
    forwarded = next(
        body
        for body in host_receiver.accepted("event.received")
        if body["data"]["event"]["eventId"] == emitted[0]["eventId"]
    )
    assert forwarded["data"]["subscription_id"] == sub_id
    assert forwarded["data"]["user"] == "alice" and forwarded["data"]["server"] == server.id
    assert forwarded["data"]["event"]["data"] == {"repo": "acme/app", "status": "success"}
    # pull delivery offers the same bodies, once each (in arrival order)
    pulled = api.get(f"/subscriptions/{sub_id}/events").json()["items"]
    pulled_ids = [p["data"]["event"]["eventId"] for p in pulled if p["type"] == "event.received"]
    assert sorted(pulled_ids) == sorted(e["eventId"] for e in emitted)

    # refreshed across several (compressed) TTLs, same key, last cursor
    wait_for(
        lambda: len(_subscribes(refserver, "build.finished")) >= 4, timeout=30, message="refreshes"
    )
    refreshes = _subscribes(refserver, "build.finished")[1:]
    assert all(r["arguments"] == {"repo": "acme/app"} for r in refreshes)
    assert all(r["delivery"]["url"] == first["delivery"]["url"] for r in refreshes)
    assert refreshes[-1]["cursor"] is not None
    assert Subscription.objects.get(pk=sub_id).status == "active"

    # the server forgets everything; events keep happening; the next refresh
    # recreates it from our cursor and they are replayed to us.
    refserver.control("POST", "forget")
    missed = refserver.control(
        "POST",
        "emit",
        {"name": "build.finished", "data": {"repo": "acme/app", "status": "cancelled"}},
    )
    wait_for(
        lambda: missed["eventId"] in _event_ids(host_receiver),
        timeout=30,
        message="replay after forget",
    )
    sub = Subscription.objects.get(pk=sub_id)
    assert sub.status == "active"
    assert _event_ids(host_receiver).count(missed["eventId"]) == 1

    # a gap: cursor persisted, flagged, forwarded
    refserver.control("POST", "gap", {"id": sub.remote_id})
    wait_for(lambda: host_receiver.accepted("subscription.gap"), message="gap forwarded")
    sub = Subscription.objects.get(pk=sub_id)
    assert sub.truncated and sub.last_gap_at

    # rotation: the new secret goes out on an immediate refresh
    before = _remote(refserver, sub)["secretFingerprint"]
    assert api.post(f"/subscriptions/{sub_id}/rotate-secret").status_code == 200
    wait_for(
        lambda: (_remote(refserver, sub) or {}).get("secretFingerprint") not in (None, before),
        message="rotated",
    )
    after_rotation = refserver.control(
        "POST",
        "emit",
        {"name": "build.finished", "data": {"repo": "acme/app", "status": "success"}},
    )
    wait_for(
        lambda: after_rotation["eventId"] in _event_ids(host_receiver),
        message="event after rotation",
    )

    # revoke: the server sees events/unsubscribe; later deliveries get 410
    answer = api.delete(f"/subscriptions/{sub_id}")
    assert answer.status_code == 200 and answer.json()["status"] == "revoked"
    unsubscribes = refserver.control("GET", "received?kinds=unsubscribe")["unsubscribe"]
    assert [u["name"] for u in unsubscribes] == ["build.finished"]
    assert unsubscribes[0]["url"] == first["delivery"]["url"]
    sub = Subscription.objects.get(pk=sub_id)
    stored = ReceivedEvent.objects.filter(subscription=sub).count()
    forwarded_count = HostDelivery.objects.filter(stream=sub.id).count()
    headers, raw = signed(
        sub.secret,
        {
            "eventId": "evt_late",
            "name": "build.finished",
            "timestamp": "2030-01-01T00:00:00Z",
            "data": {},
            "cursor": "99",
        },
        subscription_id=sub.remote_id,
    )
    late = httpx.post(first["delivery"]["url"], content=raw, headers=headers)
    assert late.status_code == 410
    assert ReceivedEvent.objects.filter(subscription=sub).count() == stored
    # the late event is neither stored nor forwarded: no delivery was added
    assert HostDelivery.objects.filter(stream=sub.id).count() == forwarded_count
    late_ids = [
        d.body["data"]["event"]["eventId"]
        for d in HostDelivery.objects.filter(stream=sub.id, type="event.received")
    ]
    assert "evt_late" not in late_ids
    assert RefreshAttempt.objects.filter(subscription=sub, kind="unsubscribe", ok=True).exists()
    assert not host_receiver.rejected


def test_a_server_termination_ends_the_subscription(setup, tpersonas, refserver, host_receiver):
    api = tpersonas.acme_api
    created = api.post(
        "/subscriptions",
        json={"user": "alice", "server": setup.id, "event": "ticket.created", "ttl_ms": 60000},
    ).json()
    sub = wait_for(_status(created["id"], "active"), message="active")
    refserver.control("POST", "terminate", {"id": sub.remote_id})
    sub = wait_for(_status(created["id"], "terminated"), message="terminated")
    assert sub.next_refresh_at is None and sub.last_error == "forbidden"
    updates = wait_for(
        lambda: [
            r
            for r in host_receiver.accepted("subscription.updated")
            if r["data"]["status"] == "terminated"
        ]
    )
    assert updates[0]["data"]["previous_status"] == "active"
    assert updates[0]["data"]["reason"] == "forbidden"


GRANT_MS = 12_000  # its last third (4 s) is shorter than beat's production tick (10 s)


def test_a_short_grant_is_refreshed_on_time_whatever_the_beat_tick(
    production_timings, tpersonas, refserver, host_receiver
):
    """Regression: a grant whose last third is shorter than beat's 10 s tick
    (a 20 s grant, due at ~13 s) expired when the tick landed after
    refreshBefore. Each refresh now also runs as a countdown. A 12 s grant
    (due at 8 s, 4 s left: a tick-only refresh would miss most grants) never
    lapses over six grants."""
    server = server_register(
        host=tpersonas.acme, name="Reference", url=refserver.mcp_url, actor=SYSTEM
    )
    approve_events(tpersonas.alice, server, ["build.finished"])
    created = tpersonas.acme_api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": server.id,
            "event": "build.finished",
            "arguments": {"repo": "acme/app"},
            "ttl_ms": GRANT_MS,
        },
    ).json()
    wait_for(_status(created["id"], "active"), timeout=30, message="active")
    deadline = time.monotonic() + 6 * GRANT_MS / 1000
    while time.monotonic() < deadline:
        sub = Subscription.objects.get(pk=created["id"])
        assert sub.status == "active", (sub.status, sub.last_error_message)
        time.sleep(1)
    refreshes = [
        r
        for r in refserver.control("GET", "received?kinds=subscribe")["subscribe"]
        if r["name"] == "build.finished"
    ]
    assert len(refreshes) >= 9  # the subscribe and a refresh every ~8 s
    tries = RefreshAttempt.objects.filter(subscription_id=created["id"], ok=True).order_by("id")
    for earlier, later in zip(tries, tries[1:], strict=False):
        assert later.at <= earlier.refresh_before, "a refresh landed after the grant ran out"
