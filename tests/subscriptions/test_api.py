"""The subscriptions and host-endpoint API: validation, idempotence, tenancy."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from outbox.models import DeliveryStatus, HostDelivery
from subscriptions.models import Subscription, SubscriptionStatus
from subscriptions.services.common import subscription_emit
from subscriptions.services.modes import delivery_mode_choose
from switchboard.errors import Invalid
from tests.subscriptions.support import approve_events, make_event_server, make_subscription


@pytest.fixture
def server(personas):
    return make_event_server(personas.acme)


def create(api, server, **extra):
    body = {
        "user": "alice",
        "server": server.id,
        "event": "build.finished",
        "arguments": {"repo": "acme/app"},
    }
    return api.post("/subscriptions", json={**body, **extra})


def test_without_consent_it_waits_and_nothing_is_sent(personas, server):
    answer = create(personas.acme_api, server)
    assert answer.status_code == 201
    body = answer.json()
    assert body["status"] == "pending_consent"
    assert (
        body["mode"] == "webhook" and body["user"] == "alice" and body["event"] == "build.finished"
    )
    assert "secret" not in str(body) and "token" not in body
    sub = Subscription.objects.get(pk=body["id"])
    assert sub.next_refresh_at is None  # nothing will call the server


def test_with_consent_it_is_pending_and_due_now(personas, server):
    approve_events(personas.alice, server, ["build.finished"])
    body = create(personas.acme_api, server).json()
    assert body["status"] == "pending"
    assert Subscription.objects.get(pk=body["id"]).next_refresh_at <= timezone.now()


def test_consent_for_another_event_type_does_not_count(personas, server):
    approve_events(personas.alice, server, ["ticket.created"])
    assert create(personas.acme_api, server).json()["status"] == "pending_consent"


def test_the_same_key_again_answers_the_existing_one(personas, server):
    first = create(personas.acme_api, server)
    again = create(personas.acme_api, server)
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["id"] == again.json()["id"]
    other = create(personas.acme_api, server, arguments={"repo": "acme/other"})
    assert other.status_code == 201 and other.json()["id"] != first.json()["id"]


@pytest.mark.parametrize(
    "arguments, field",
    [
        ({}, "arguments.repo"),
        ({"repo": 5}, "arguments.repo"),
        ({"repo": "a", "colour": "red"}, "arguments.colour"),
    ],
)
def test_arguments_failing_the_input_schema_are_422_naming_the_field(
    personas, server, arguments, field
):
    answer = create(personas.acme_api, server, arguments=arguments)
    assert answer.status_code == 422
    assert answer.json()["error"]["field"] == field
    assert answer.json()["error"]["code"] == "invalid_arguments"


@pytest.mark.parametrize(
    "offered, asked, reachable, chosen",
    [
        # auto: webhook > push > poll among what is offered and runnable (case 46)
        (["webhook", "push", "poll"], "auto", True, "webhook"),
        (["webhook", "push", "poll"], "auto", False, "push"),
        (["webhook", "poll"], "auto", False, "poll"),
        (["poll", "webhook"], "auto", True, "webhook"),
        (["push", "poll"], "auto", True, "push"),
        (["poll"], "auto", True, "poll"),  # case 46: ["poll"] with webhook configured
        (["webhook"], "auto", False, None),
        ([], "auto", True, None),
        # forced: offered and runnable, or 422
        (["webhook", "poll"], "poll", True, "poll"),
        (["push", "poll"], "push", False, "push"),
        (["webhook"], "webhook", True, "webhook"),
        (["webhook"], "webhook", False, None),
        (["webhook", "poll"], "push", True, None),
        (["push"], "poll", True, None),
    ],
)
def test_46_the_mode_choice_table(settings, offered, asked, reachable, chosen):
    settings.SUBSCRIPTION_WEBHOOK_REACHABLE = reachable
    if chosen is None:
        with pytest.raises(Invalid) as refused:
            delivery_mode_choose(offered=offered, requested=asked)
        assert refused.value.code == "unsupported_delivery_mode"
        assert refused.value.field == "delivery"
        # The message names what is offered, so the host can ask for it.
        for mode in offered:
            assert mode in refused.value.message
    else:
        assert delivery_mode_choose(offered=offered, requested=asked) == chosen


def test_poll_and_push_types_are_subscribed_in_their_mode(personas, server):
    push = create(personas.acme_api, server, event="deploy.status", arguments={})
    assert push.status_code == 201 and push.json()["mode"] == "push"
    assert push.json()["poll"] is None
    poll = create(personas.acme_api, server, event="ticket.created", arguments={}, delivery="poll")
    assert poll.status_code == 201 and poll.json()["mode"] == "poll"
    assert poll.json()["stream"] is None and "next_poll_at" in poll.json()["poll"]


def test_a_mode_the_type_does_not_offer_is_422_naming_the_offered_ones(personas, server):
    answer = create(
        personas.acme_api, server, event="deploy.status", arguments={}, delivery="webhook"
    )
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "unsupported_delivery_mode" and error["field"] == "delivery"
    assert "push, poll" in error["message"]


def test_an_unknown_event_type_is_422(personas, server):
    answer = create(personas.acme_api, server, event="nope")
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "event"


def test_ttl_null_asks_for_no_expiry_and_absent_takes_the_default(personas, server, settings):
    settings.SUBSCRIPTION_TTL = 120
    default = Subscription.objects.get(pk=create(personas.acme_api, server).json()["id"])
    assert default.ttl_ms == 120_000
    forever = Subscription.objects.get(
        pk=create(personas.acme_api, server, arguments={"repo": "x"}, ttl_ms=None).json()["id"]
    )
    assert forever.ttl_ms is None


def test_lists_filter_and_paginate(personas, server):
    mine = make_subscription(personas.alice, server)
    make_subscription(personas.bob, server, status=SubscriptionStatus.REVOKED)
    api = personas.acme_api
    assert [s["id"] for s in api.get("/subscriptions?user=alice").json()["items"]] == [mine.id]
    assert len(api.get("/subscriptions?status=revoked").json()["items"]) == 1
    assert api.get("/subscriptions?user=nobody").json()["items"] == []
    page = api.get("/subscriptions?limit=1").json()
    assert len(page["items"]) == 1 and page["next_cursor"]


def test_every_route_answers_404_for_another_hosts_subscription(personas, server):
    sub = make_subscription(personas.alice, server)
    bravo = personas.bravo_api
    for method, path in [
        ("get", f"/subscriptions/{sub.id}"),
        ("delete", f"/subscriptions/{sub.id}"),
        ("post", f"/subscriptions/{sub.id}/pause"),
        ("post", f"/subscriptions/{sub.id}/resume"),
        ("post", f"/subscriptions/{sub.id}/rotate-secret"),
        ("get", f"/subscriptions/{sub.id}/events"),
    ]:
        assert getattr(bravo, method)(path).status_code == 404, path
    assert bravo.get("/subscriptions").json()["items"] == []
    assert (
        bravo.post(
            "/subscriptions", json={"user": "alice", "server": server.id, "event": "build.finished"}
        ).status_code
        == 404
    )
    sub.refresh_from_db()
    assert sub.status == SubscriptionStatus.ACTIVE and sub.paused_at is None


def test_pause_holds_and_resume_releases_in_order(personas, server):
    sub = make_subscription(personas.alice, server)
    api = personas.acme_api
    assert (
        personas.acme_api.put("/host/endpoint", json={"url": "http://127.0.0.1:9/hook"}).status_code
        == 200
    )
    assert api.post(f"/subscriptions/{sub.id}/pause").json()["status"] == "paused"
    sub.refresh_from_db()
    held = [subscription_emit(sub, type="event.received", data={"n": n}) for n in range(3)]
    assert {h.status for h in held} == {DeliveryStatus.HELD}
    body = api.post(f"/subscriptions/{sub.id}/resume").json()
    assert body["status"] == "active" and body["paused"] is False
    released = HostDelivery.objects.filter(seq__in=[h.seq for h in held]).order_by("seq")
    assert [d.status for d in released] == [DeliveryStatus.PENDING] * 3


def test_rotating_keeps_the_old_secret_for_the_grace_window(personas, server, settings):
    settings.SUBSCRIPTION_SECRET_GRACE = 600
    sub = make_subscription(personas.alice, server)
    old = sub.secret
    assert personas.acme_api.post(f"/subscriptions/{sub.id}/rotate-secret").status_code == 200
    sub.refresh_from_db()
    assert sub.secret != old and sub.previous_secret == old
    assert sub.previous_secret_until > timezone.now() + timedelta(seconds=590)
    assert sub.next_refresh_at <= timezone.now()  # goes out on an immediate refresh


def test_pull_returns_delivery_bodies_in_order_after_a_position(personas, server):
    sub = make_subscription(personas.alice, server)
    for n in range(3):
        subscription_emit(sub, type="event.received", data={"n": n})
    api = personas.acme_api
    first = api.get(f"/subscriptions/{sub.id}/events?limit=2").json()
    assert [i["data"]["n"] for i in first["items"]] == [0, 1]
    assert first["items"][0]["type"] == "event.received" and first["items"][0]["webhook_id"]
    rest = api.get(f"/subscriptions/{sub.id}/events?after={first['next_after']}").json()
    assert [i["data"]["n"] for i in rest["items"]] == [2]
    assert api.get(f"/subscriptions/{sub.id}/events?after=garbage").status_code == 400


def test_the_host_endpoint_routes(personas):
    api = personas.acme_api
    assert api.get("/host/endpoint").status_code == 404
    first = api.put("/host/endpoint", json={"url": "http://127.0.0.1:9/hook"}).json()
    assert first["secret"].startswith("whsec_")
    second = api.put("/host/endpoint", json={"url": "http://127.0.0.1:9/hook2"}).json()
    assert second["secret"] != first["secret"]
    shown = api.get("/host/endpoint").json()
    assert shown == {
        "url": "http://127.0.0.1:9/hook2",
        "status": "active",
        "disabled_reason": None,
        "last_success_at": None,
        "last_failure_at": None,
    }
    assert api.post("/host/endpoint/test").status_code == 202
    log = api.get("/host/deliveries?type=ping").json()
    assert [d["type"] for d in log["items"]] == ["ping"]
    assert log["items"][0]["status"] == "pending" and log["items"][0]["attempts"] == []
    assert personas.bravo_api.get("/host/deliveries").json()["items"] == []
    delivery_id = log["items"][0]["id"]
    assert personas.bravo_api.post(f"/host/deliveries/{delivery_id}/resend").status_code == 404
    assert api.post(f"/host/deliveries/{delivery_id}/resend").status_code == 202
    assert (
        api.post("/host/deliveries/recover", json={"since": "2020-01-01T00:00:00Z"}).status_code
        == 202
    )
    assert api.put("/host/endpoint", json={"url": "ftp://example.com/x"}).status_code == 422


def test_the_openapi_document_describes_the_routes(personas):
    paths = personas.acme_api.client.get("/api/v1/openapi.json").json()["paths"]
    for path in [
        "/api/v1/subscriptions",
        "/api/v1/subscriptions/{subscription_id}",
        "/api/v1/subscriptions/{subscription_id}/events",
        "/api/v1/subscriptions/{subscription_id}/rotate-secret",
        "/api/v1/host/endpoint",
        "/api/v1/host/deliveries",
        "/api/v1/host/deliveries/recover",
    ]:
        assert path in paths


def test_pull_offers_events_and_notices_alike_in_arrival_order(personas, server):
    """The pull API carries what the host endpoint gets: events, gaps and
    status changes, in the order they happened."""
    from subscriptions.services import webhook_receive
    from tests.subscriptions.support import event_body, signed

    sub = make_subscription(personas.alice, server, remote_id="sub_remote")

    def deliver(body, webhook_id):
        headers, raw = signed(sub.secret, body, webhook_id=webhook_id)
        assert webhook_receive(token=sub.token, headers=headers, body=raw).status == 200

    deliver(event_body("evt_1"), "msg_1")
    deliver({"type": "gap", "cursor": "5"}, "msg_gap")
    deliver({"type": "terminated", "error": {"code": -32012, "message": "Forbidden"}}, "msg_t")
    items = personas.acme_api.get(f"/subscriptions/{sub.id}/events").json()["items"]
    assert [i["type"] for i in items] == [
        "event.received",
        "subscription.gap",
        "subscription.updated",
    ]
    assert items[2]["data"]["status"] == "terminated"
