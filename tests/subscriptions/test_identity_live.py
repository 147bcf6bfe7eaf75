"""Optional server identity (docs/events-client.md §8, "may change"): with the per-server
switch on, a delivery must also carry an ed25519 ``v1a`` signature by a key
the server publishes at ``/.well-known/mcp-webhook-jwks.json``; off (the
default), ``v1a`` is ignored. Against the reference server signing for real."""

from __future__ import annotations

import pytest

from subscriptions.models import ReceivedEvent, Subscription
from switchboard.services.servers import server_register
from tests.live import start_refserver
from tests.subscriptions.support import SYSTEM, approve_events, wait_for

pytestmark = pytest.mark.processes


@pytest.fixture(scope="module")
def signing_server():
    supervisor, server = start_refserver(
        ["--min-ttl-ms", "500", "--dialect", "sep-3415", "--webhook-identity"],
        name="refserver-identity",
    )
    try:
        yield server
    finally:
        supervisor.stop_all()


@pytest.mark.parametrize("enforce", [True, False])
def test_a_server_signature_is_required_only_where_staff_asked_for_it(
    live, tpersonas, signing_server, host_receiver, enforce
):
    signing_server.reset()
    server = server_register(
        host=tpersonas.acme, name="Signing", url=signing_server.mcp_url, actor=SYSTEM
    )
    api = tpersonas.acme_api
    patched = api.patch(f"/servers/{server.id}", {"events_enforce_identity": enforce}).json()
    assert patched["events_enforce_identity"] is enforce
    approve_events(tpersonas.alice, server, ["build.finished"])
    answer = api.put("/host/endpoint", json={"url": host_receiver.url})
    host_receiver.secret = answer.json()["secret"]
    created = api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": server.id,
            "event": "build.finished",
            "arguments": {"repo": "acme/app"},
        },
    ).json()
    # The challenge carried the v1a signature too: verified, echoed.
    sub = wait_for(
        lambda: Subscription.objects.filter(pk=created["id"], status="active").first(),
        timeout=30,
        message="active",
    )

    good = signing_server.control(
        "POST", "emit", {"name": "build.finished", "data": {"repo": "acme/app", "n": 1}}
    )
    forged = signing_server.control(
        "POST",
        "emit",
        {"name": "build.finished", "data": {"repo": "acme/app", "n": 2}, "signing": "bad_identity"},
    )
    wait_for(lambda: host_receiver.accepted("event.received"), message="the good one")

    def answered(event_id: str) -> list[int]:
        deliveries = signing_server.control("GET", "received?kinds=deliveries")["deliveries"]
        return [
            d["status"]
            for d in deliveries
            if d["kind"] == "event" and d["body"].get("eventId") == event_id
        ]

    # Our answer to the forged delivery: 401 when enforcing, else 200.
    wait_for(lambda: answered(forged["eventId"]), message="the forged one answered")
    assert answered(forged["eventId"])[0] == (401 if enforce else 200)
    stored = set(ReceivedEvent.objects.filter(subscription=sub).values_list("event_id", flat=True))
    if enforce:
        assert stored == {good["eventId"]}  # an unpublished key's signature is refused
    else:
        assert stored == {good["eventId"], forged["eventId"]}  # v1a ignored by default
