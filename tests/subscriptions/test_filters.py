"""The host's filter and expiry on every subscription (docs/host-integration.md): checked
at the API, applied on each receiving path (webhook, poll/push intake), held
back events counted and never forwarded, expiry revoking on time."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from outbox.models import HostDelivery
from subscriptions.models import Mode, ReceivedEvent, Subscription, SubscriptionStatus
from subscriptions.services import subscriptions_expire_due, webhook_receive
from subscriptions.services.intake import events_take_in
from subscriptions.services.push import Frame, push_frames_take
from switchboard.models import AuditEntry
from tests.subscriptions.support import (
    approve_events,
    event_body,
    make_event_server,
    make_subscription,
    signed,
)

CRITICAL_CI = {"tags": ["ci", "deploy"], "priority": ["high", "critical"]}


@pytest.fixture
def server(personas):
    server = make_event_server(personas.acme)
    approve_events(personas.alice, server, ["build.finished", "deploy.status"])
    return server


def create(api, server, **extra):
    body = {
        "user": "alice",
        "server": server.id,
        "event": "build.finished",
        "arguments": {"repo": "acme/app"},
    }
    return api.post("/subscriptions", json={**body, **extra})


def forwarded(sub) -> list[str]:
    return [
        d.body["data"]["event"]["eventId"]
        for d in HostDelivery.objects.filter(stream=sub.id, type="event.received").order_by("seq")
    ]


# --- the API --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filter_", "field"),
    [
        ({"event_types": ["build.*", "*.finished"]}, "filter.event_types[1]"),
        ({"event_types": ["git*"]}, "filter.event_types[0]"),
        ({"tags": ["ok", ""]}, "filter.tags[1]"),
    ],
)
def test_a_bad_filter_is_422_naming_the_field_and_nothing_is_created(
    personas, server, filter_, field
):
    answer = create(personas.acme_api, server, filter=filter_)
    assert answer.status_code == 422, answer.content
    assert answer.json()["error"]["field"] == field
    assert not Subscription.objects.exists()


def test_an_unknown_priority_is_422(personas, server):
    answer = create(personas.acme_api, server, filter={"priority": ["urgent"]})
    assert answer.status_code == 422
    assert "priority" in str(answer.json())


def test_a_past_expiry_is_422_naming_the_field(personas, server):
    past = (timezone.now() - timedelta(minutes=1)).isoformat()
    answer = create(personas.acme_api, server, expires_at=past)
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "expires_at"


def test_filter_and_expiry_are_stored_shown_and_changed(personas, server):
    later = timezone.now() + timedelta(hours=2)
    answer = create(
        personas.acme_api,
        server,
        filter={"event_types": ["build.*"], **CRITICAL_CI},
        expires_at=later.isoformat(),
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["filter"] == {
        "event_types": ["build.*"],
        "tags": ["ci", "deploy"],
        "priority": ["high", "critical"],
    }
    assert body["filtered_count"] == 0 and body["expires_at"]

    changed = personas.acme_api.patch(
        f"/subscriptions/{body['id']}", json={"filter": {"priority": ["critical"]}}
    )
    assert changed.status_code == 200, changed.content
    assert changed.json()["filter"] == {"priority": ["critical"]}
    assert changed.json()["expires_at"] == body["expires_at"]  # not given: unchanged
    cleared = personas.acme_api.patch(f"/subscriptions/{body['id']}", json={"expires_at": None})
    assert cleared.json()["expires_at"] is None
    changes = [e.detail for e in AuditEntry.objects.filter(kind="subscription.changed")]
    assert len(changes) == 2 and any("filter" in d for d in changes)
    bad = personas.acme_api.patch(
        f"/subscriptions/{body['id']}", json={"filter": {"event_types": ["a..b"]}}
    )
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "filter.event_types[0]"
    assert Subscription.objects.get(pk=body["id"]).filter == {"priority": ["critical"]}


def test_another_hosts_subscription_cannot_be_changed(personas, server):
    body = create(personas.acme_api, server).json()
    answer = personas.bravo_api.patch(f"/subscriptions/{body['id']}", json={"expires_at": None})
    assert answer.status_code == 404


# --- applied on every receiving path -----------------------------------------------


def test_the_webhook_receiver_forwards_only_what_passes_and_counts_the_rest(personas, server):
    sub = make_subscription(personas.alice, server, remote_id="sub_remote", filter=CRITICAL_CI)
    cases = [
        ("evt_pass", {"tags": ["ci"], "priority": "critical"}),
        ("evt_low", {"tags": ["ci"], "priority": "low"}),
        ("evt_untagged", {"priority": "high"}),
        ("evt_default_priority", {"tags": ["deploy"]}),  # counts as normal: held back
    ]
    for n, (event_id, data) in enumerate(cases):
        headers, raw = signed(
            sub.secret, event_body(event_id, cursor=str(n), **data), webhook_id=f"m{n}"
        )
        assert webhook_receive(token=sub.token, headers=headers, body=raw).status == 200
    # A retry of a held-back event is a duplicate, not counted twice.
    headers, raw = signed(
        sub.secret, event_body("evt_low", cursor="1", tags=["ci"], priority="low"), webhook_id="m9"
    )
    assert webhook_receive(token=sub.token, headers=headers, body=raw).body["status"] == "duplicate"

    assert forwarded(sub) == ["evt_pass"]
    stored = Subscription.objects.get(pk=sub.pk)
    assert stored.filtered_count == 3
    assert stored.cursor == "3"  # the cursor still follows everything received
    assert ReceivedEvent.objects.filter(subscription=sub).count() == 4


def test_poll_and_push_intake_apply_it_too(personas, server):
    polled = make_subscription(
        personas.alice,
        server,
        event="deploy.status",
        arguments={"p": 1},
        mode=Mode.POLL,
        filter={"priority": ["critical"]},
    )
    events_take_in(
        subscription_id=polled.pk,
        occurrences=[
            {
                **event_body("p1", cursor="1", name="deploy.status"),
                "data": {"priority": "critical"},
            },
            {**event_body("p2", cursor="2", name="deploy.status"), "data": {"priority": "normal"}},
        ],
        cursor="2",
        cursor_given=True,
        source="poll_truncated",
    )
    assert forwarded(polled) == ["p1"]
    assert Subscription.objects.get(pk=polled.pk).filtered_count == 1

    pushed = [
        make_subscription(
            personas.alice,
            server,
            event="deploy.status",
            arguments={"s": n},
            mode=Mode.PUSH,
            filter={"event_types": ["deploy.*"], "tags": ["prod"]},
        )
        for n in range(2)
    ]
    push_frames_take(
        [
            Frame(
                pushed[0].pk,
                "event",
                {**event_body("s0", name="deploy.status"), "data": {"tags": ["prod"]}},
            ),
            Frame(
                pushed[1].pk,
                "event",
                {**event_body("s1", name="deploy.status"), "data": {"tags": ["dev"]}},
            ),
        ]
    )
    assert forwarded(pushed[0]) == ["s0"] and forwarded(pushed[1]) == []
    counts = dict(Subscription.objects.filter(mode=Mode.PUSH).values_list("pk", "filtered_count"))
    assert counts == {pushed[0].pk: 0, pushed[1].pk: 1}
    # Replayed after a reconnect: not counted again.
    push_frames_take(
        [
            Frame(
                pushed[1].pk,
                "event",
                {**event_body("s1", name="deploy.status"), "data": {"tags": ["dev"]}},
            )
        ]
    )
    assert Subscription.objects.get(pk=pushed[1].pk).filtered_count == 1


# --- expiry -----------------------------------------------------------------------


def test_expiry_revokes_on_time_and_tells_the_host(personas, server):
    due = make_subscription(
        personas.alice,
        server,
        arguments={"a": 1},
        mode=Mode.POLL,
        expires_at=timezone.now() + timedelta(hours=1),
    )
    later = make_subscription(
        personas.alice,
        server,
        arguments={"a": 2},
        mode=Mode.POLL,
        expires_at=timezone.now() + timedelta(hours=3),
    )
    Subscription.objects.filter(pk=due.pk).update(expires_at=timezone.now() - timedelta(seconds=1))

    assert subscriptions_expire_due() == 1
    assert Subscription.objects.get(pk=due.pk).status == SubscriptionStatus.REVOKED
    assert Subscription.objects.get(pk=later.pk).status == SubscriptionStatus.ACTIVE
    told = HostDelivery.objects.get(stream=due.id, type="subscription.updated")
    assert told.body["data"]["status"] == "revoked"
    assert told.body["data"]["reason"] == "expired_at"
    assert subscriptions_expire_due() == 0  # once
