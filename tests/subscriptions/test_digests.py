"""Delivery channels (docs/host-integration.md): cron and scheduled digests instead of
one delivery per event. Checked at the API, DST-correct firings, one digest
per window with exactly the window's events, none lost or repeated when the
sending transaction does not commit."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import transaction
from django.utils import timezone

from outbox.models import HostDelivery
from subscriptions.models import DigestState, Mode, ReceivedEvent, Subscription, SubscriptionStatus
from subscriptions.services import subscription_digest, subscriptions_digest_due, webhook_receive
from subscriptions.services.channels import channel_parse, next_firing
from subscriptions.services.intake import events_take_in
from tests.subscriptions.support import (
    approve_events,
    event_body,
    make_event_server,
    make_subscription,
    signed,
)

EVERY_MINUTE = {"type": "cron", "expression": "* * * * *", "timezone": "Europe/Paris"}


@pytest.fixture
def server(personas):
    server = make_event_server(personas.acme)
    approve_events(personas.alice, server, ["build.finished", "deploy.status"])
    return server


def digest_sub(personas, server, channel, n=0, **fields) -> Subscription:
    sub = make_subscription(
        personas.alice,
        server,
        event="deploy.status",
        arguments={"n": n},
        mode=Mode.POLL,
        channel=channel_parse(channel),
        **fields,
    )
    Subscription.objects.filter(pk=sub.pk).update(
        digest_from=timezone.now(), next_digest_at=timezone.now() + timedelta(minutes=1)
    )
    return Subscription.objects.get(pk=sub.pk)


def arrive(sub, *ids, **data):
    events_take_in(
        subscription_id=sub.pk,
        occurrences=[
            {**event_body(i, cursor=i, name="deploy.status"), "data": data or {"n": i}} for i in ids
        ],
        cursor=ids[-1],
        cursor_given=True,
        source="poll_truncated",
    )


def make_due(sub):
    Subscription.objects.filter(pk=sub.pk).update(
        next_digest_at=timezone.now() - timedelta(seconds=1)
    )


def digests(sub) -> list[dict]:
    return [
        d.body["data"]
        for d in HostDelivery.objects.filter(stream=sub.id, type="events.digest").order_by("seq")
    ]


def realtime(sub) -> list[HostDelivery]:
    return list(HostDelivery.objects.filter(stream=sub.id, type="event.received"))


# --- checked at the API ------------------------------------------------------------


@pytest.mark.parametrize(
    ("channel", "field"),
    [
        ({"type": "cron", "expression": "61 * * * *"}, "channel.expression"),
        ({"type": "cron", "expression": "not cron"}, "channel.expression"),
        ({"type": "cron"}, "channel.expression"),
        (
            {"type": "cron", "expression": "0 9 * * *", "timezone": "Mars/Olympus"},
            "channel.timezone",
        ),
        ({"type": "cron", "expression": "0 9 * * *", "max_events": 0}, "channel.max_events"),
        ({"type": "scheduled", "deliver_at": "2020-01-01T00:00:00Z"}, "channel.deliver_at"),
        ({"type": "scheduled"}, "channel.deliver_at"),
    ],
)
def test_a_bad_channel_is_422_naming_the_field(personas, server, channel, field):
    answer = personas.acme_api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": server.id,
            "event": "build.finished",
            "arguments": {"repo": "acme/app"},
            "channel": channel,
        },
    )
    assert answer.status_code == 422, answer.content
    assert answer.json()["error"]["field"] == field
    assert not Subscription.objects.exists()


def test_a_cron_channel_is_shown_with_its_next_digest(personas, server):
    answer = personas.acme_api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": server.id,
            "event": "build.finished",
            "arguments": {"repo": "acme/app"},
            "channel": {"type": "cron", "expression": "0 9 * * *", "timezone": "Europe/Paris"},
        },
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["channel"] == {
        "type": "cron",
        "expression": "0 9 * * *",
        "timezone": "Europe/Paris",
        "max_events": 100,
    }
    next_at = datetime.fromisoformat(body["next_digest_at"].replace("Z", "+00:00"))
    local = next_at.astimezone(ZoneInfo("Europe/Paris"))
    assert (local.hour, local.minute) == (9, 0) and next_at > timezone.now()
    plain = personas.acme_api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": server.id,
            "event": "build.finished",
            "arguments": {"repo": "b"},
        },
    ).json()
    assert plain["channel"] == {"type": "realtime"} and plain["next_digest_at"] is None


# --- firings across a DST change ---------------------------------------------------


def test_a_daily_digest_keeps_its_local_time_across_the_dst_change():
    paris = {"type": "cron", "expression": "0 9 * * *", "timezone": "Europe/Paris"}
    before = next_firing(paris, datetime(2026, 3, 28, 9, 30, tzinfo=UTC))
    after = next_firing(paris, before)
    # 09:00 in Paris: 08:00Z in winter time, 07:00Z once clocks went forward (29 March).
    assert before == datetime(2026, 3, 29, 7, 0, tzinfo=UTC)
    assert after == datetime(2026, 3, 30, 7, 0, tzinfo=UTC)
    autumn = next_firing(paris, datetime(2026, 10, 24, 12, 0, tzinfo=UTC))
    assert autumn == datetime(2026, 10, 25, 8, 0, tzinfo=UTC)  # back to UTC+1


def test_a_local_time_the_change_skips_fires_at_the_next_valid_minute():
    skipped = {"type": "cron", "expression": "30 2 * * *", "timezone": "Europe/Paris"}
    firing = next_firing(skipped, datetime(2026, 3, 28, 12, 0, tzinfo=UTC))
    local = firing.astimezone(ZoneInfo("Europe/Paris"))
    assert local.date().isoformat() == "2026-03-29" and (local.hour, local.minute) == (3, 0)


# --- sending -----------------------------------------------------------------------


def test_a_cron_digest_sends_the_windows_events_once(personas, server):
    sub = digest_sub(personas, server, {**EVERY_MINUTE, "max_events": 100})
    window_from = sub.digest_from
    arrive(sub, "e1", "e2")
    assert realtime(sub) == []  # nothing forwarded one by one
    assert set(ReceivedEvent.objects.values_list("digest_state", flat=True)) == {"waiting"}
    assert subscription_digest(subscription_id=sub.pk) == "not_due"

    make_due(sub)
    assert subscriptions_digest_due() == 1  # beat finds it through the due index
    assert subscription_digest(subscription_id=sub.pk) == "sent"
    [digest] = digests(sub)
    assert [e["eventId"] for e in digest["events"]] == ["e1", "e2"]
    assert digest["truncated"] is False and digest["subscription_id"] == sub.id
    assert digest["user"] == "alice" and digest["events"][0]["trust"]
    assert digest["window"]["from"] == window_from.astimezone(UTC).isoformat().replace(
        "+00:00", "Z"
    )
    stored = Subscription.objects.get(pk=sub.pk)
    assert stored.next_digest_at > timezone.now()  # the next minute
    assert stored.digest_from > window_from
    assert subscription_digest(subscription_id=sub.pk) == "not_due"  # once

    # The next window has only what arrived since; an empty one sends nothing.
    arrive(sub, "e3")
    make_due(sub)
    subscription_digest(subscription_id=sub.pk)
    assert [[e["eventId"] for e in d["events"]] for d in digests(sub)] == [["e1", "e2"], ["e3"]]
    make_due(sub)
    assert subscription_digest(subscription_id=sub.pk) == "empty"
    assert len(digests(sub)) == 2


def test_a_full_digest_says_truncated_and_leaves_the_rest_out(personas, server):
    sub = digest_sub(personas, server, {**EVERY_MINUTE, "max_events": 2})
    arrive(sub, "a", "b", "c")
    make_due(sub)
    subscription_digest(subscription_id=sub.pk)
    [digest] = digests(sub)
    assert [e["eventId"] for e in digest["events"]] == ["a", "b"] and digest["truncated"] is True
    states = dict(ReceivedEvent.objects.values_list("event_id", "digest_state"))
    assert states == {"a": "sent", "b": "sent", "c": "dropped"}
    make_due(sub)
    assert subscription_digest(subscription_id=sub.pk) == "empty"


def test_a_digest_whose_transaction_does_not_commit_is_sent_by_the_next_run(personas, server):
    """A worker killed before the commit: nothing of the digest remains, so
    the next run sends the same window once."""
    sub = digest_sub(personas, server, EVERY_MINUTE)
    arrive(sub, "x1", "x2")
    make_due(sub)

    class Crash(Exception):
        pass

    with pytest.raises(Crash), transaction.atomic():
        assert subscription_digest(subscription_id=sub.pk) == "sent"
        raise Crash
    assert digests(sub) == []
    assert set(ReceivedEvent.objects.values_list("digest_state", flat=True)) == {"waiting"}
    assert subscription_digest(subscription_id=sub.pk) == "sent"
    assert [[e["eventId"] for e in d["events"]] for d in digests(sub)] == [["x1", "x2"]]


def test_the_filter_applies_before_the_digest(personas, server):
    sub = digest_sub(personas, server, EVERY_MINUTE, filter={"priority": ["critical"]})
    arrive(sub, "hot", priority="critical")
    arrive(sub, "cold", priority="low")
    make_due(sub)
    subscription_digest(subscription_id=sub.pk)
    assert [e["eventId"] for e in digests(sub)[0]["events"]] == ["hot"]
    assert Subscription.objects.get(pk=sub.pk).filtered_count == 1


def test_a_scheduled_digest_fires_once_and_revokes(personas, server):
    sub = digest_sub(
        personas,
        server,
        {"type": "scheduled", "deliver_at": (timezone.now() + timedelta(hours=1)).isoformat()},
    )
    arrive(sub, "s1")
    make_due(sub)
    assert subscription_digest(subscription_id=sub.pk) == "sent"
    assert [e["eventId"] for e in digests(sub)[0]["events"]] == ["s1"]
    stored = Subscription.objects.get(pk=sub.pk)
    assert stored.status == SubscriptionStatus.REVOKED and stored.next_digest_at is None
    told = HostDelivery.objects.get(stream=sub.id, type="subscription.updated")
    assert told.body["data"]["reason"] == "delivered"


def test_webhook_events_of_a_digest_subscription_wait_for_it(personas, server):
    sub = make_subscription(
        personas.alice, server, remote_id="sub_remote", channel=channel_parse(EVERY_MINUTE)
    )
    headers, raw = signed(sub.secret, event_body("w1", cursor="1"))
    assert webhook_receive(token=sub.token, headers=headers, body=raw).status == 200
    assert realtime(sub) == []
    assert ReceivedEvent.objects.get(event_id="w1").digest_state == DigestState.WAITING


def test_switching_back_to_realtime_sends_what_waited_in_one_last_digest(personas, server):
    sub = digest_sub(personas, server, EVERY_MINUTE)
    arrive(sub, "w1", "w2")
    answer = personas.acme_api.patch(
        f"/subscriptions/{sub.id}", json={"channel": {"type": "realtime"}}
    )
    assert answer.status_code == 200, answer.content
    assert answer.json()["channel"] == {"type": "realtime"}
    assert subscription_digest(subscription_id=sub.pk) == "sent"
    assert [e["eventId"] for e in digests(sub)[0]["events"]] == ["w1", "w2"]
    assert Subscription.objects.get(pk=sub.pk).next_digest_at is None
    arrive(sub, "r1")
    assert [d.body["data"]["event"]["eventId"] for d in realtime(sub)] == ["r1"]
