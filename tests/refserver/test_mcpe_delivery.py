"""The MCPE surface (`/mcpe/mcp`): how events are delivered: realtime
notifications, the matching quirks kept from upstream, pause and resume,
cron batches and scheduled delivery (the client: ``mcpe_support.py``)."""

from __future__ import annotations

import uuid
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tests.refserver.mcpe_support import (
    REALTIME,
    control_sub,
    emit,
    in_seconds,
    mcpe,
    settle,
    sub_ids,
)
from tests.refserver.support import RefServer, run, wait_for

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


# -- realtime delivery ------------------------------------------------------------------------


def test_subscribe_then_emit_sends_events_event(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            result = await c.ok(
                "events_subscribe",
                {
                    "filter": {"eventTypes": ["github.issue.*"], "priority": ["high"]},
                    "delivery": REALTIME,
                    "expiresAt": in_seconds(3600),
                },
            )
            assert set(result) == {
                "subscriptionId",
                "status",
                "filter",
                "delivery",
                "createdAt",
                "expiresAt",
            }
            assert result["status"] == "active"
            assert result["filter"] == {"eventTypes": ["github.issue.*"], "priority": ["high"]}
            assert result["delivery"] == REALTIME
            uuid.UUID(result["subscriptionId"])
            datetime.fromisoformat(result["createdAt"])
            sub_id = result["subscriptionId"]

            emitted = emit(
                refserver,
                "github.issue.opened",
                data={"title": "Bug report", "repo": "org/repo", "number": 123},
                metadata={"sourceEventId": "gh-evt-456", "priority": "high", "tags": ["bug"]},
            )
            event = emitted["event"]
            assert emitted["delivered"] == [{"subscriptionId": sub_id, "eventId": event["id"]}]
            assert emitted["queued"] == []
            await wait_for(lambda: len(c.inbox.of("events/event")) == 1)
        (params,) = c.inbox.of("events/event")
        assert params == {"subscriptionId": sub_id, "event": event}
        assert set(event) == {"id", "type", "data", "metadata"}
        uuid.UUID(event["id"])
        assert event["type"] == "github.issue.opened"
        assert event["data"] == {"title": "Bug report", "repo": "org/repo", "number": 123}
        metadata = event["metadata"]
        assert metadata["sourceEventId"] == "gh-evt-456"
        assert metadata["priority"] == "high" and metadata["tags"] == ["bug"]
        datetime.fromisoformat(metadata["timestamp"])
        described = control_sub(refserver, sub_id)
        assert described["session"] == c.session and described["sent"]["events"] == 1

    run(body)


def test_matching_follows_upstream_including_its_quirks(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            wildcard = await c.subscribe(filter={"eventTypes": ["github.*"]})
            star = await c.subscribe(filter={"eventTypes": ["*"]})
            tagged = await c.subscribe(filter={"eventTypes": ["github.push"], "tags": ["ci", "x"]})
            urgent = await c.subscribe(filter={"priority": ["high", "critical"]})
            everything = await c.subscribe(filter={})

            push = emit(refserver, "github.push", metadata={"tags": ["ci"]})
            assert sorted(sub_ids(push["delivered"])) == sorted([wildcard, tagged, everything])
            deep = emit(refserver, "github.issue.opened", metadata={"priority": "high"})
            assert sorted(sub_ids(deep["delivered"])) == sorted([wildcard, urgent, everything])
            other = emit(refserver, "slack.message", metadata={"priority": "low", "tags": ["x"]})
            assert sub_ids(other["delivered"]) == [everything]
            bare = emit(refserver, "github", metadata={"priority": "critical"})
            assert sorted(sub_ids(bare["delivered"])) == sorted([urgent, everything])
            untagged = emit(refserver, "github.push")
            assert sorted(sub_ids(untagged["delivered"])) == sorted([wildcard, everything])
            await wait_for(lambda: len(c.inbox.of("events/event")) == 11)
        received = {p["subscriptionId"] for p in c.inbox.of("events/event")}
        assert star not in received  # a bare "*" matches nothing
        assert control_sub(refserver, star)["sent"]["events"] == 0
        # An event without priority never matches a priority filter.
        assert urgent not in sub_ids(push["delivered"]) + sub_ids(untagged["delivered"])

    run(body)


def test_paused_subscriptions_get_nothing_and_resume_restarts_the_flow(
    refserver: RefServer,
) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            sub_id = await c.subscribe(filter={"eventTypes": ["deploy.*"]})
            paused = await c.ok("events_pause", {"subscriptionId": sub_id})
            assert paused["subscriptionId"] == sub_id and paused["status"] == "paused"
            listed = await c.ok("events_list", {"status": "paused"})
            assert [s["subscriptionId"] for s in listed["subscriptions"]] == [sub_id]
            assert (await c.ok("events_list", {"status": "active"}))["subscriptions"] == []
            missed = emit(refserver, "deploy.finished", data={"n": 1})
            assert missed["delivered"] == [] and missed["queued"] == []
            resumed = await c.ok("events_resume", {"subscriptionId": sub_id})
            assert resumed["status"] == "active"
            emit(refserver, "deploy.finished", data={"n": 2})
            await wait_for(lambda: len(c.inbox.of("events/event")) == 1)
            await settle()
        # Nothing was queued while paused.
        assert [p["event"]["data"] for p in c.inbox.of("events/event")] == [{"n": 2}]

    run(body)


# -- cron and scheduled ---------------------------------------------------------------------------


def test_cron_collects_events_into_one_batch_per_firing(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            daily = {
                "channels": ["cron"],
                "cronSchedule": {
                    "expression": "0 9 * * *",
                    "timezone": "America/New_York",
                    "aggregateEvents": True,
                    "maxEventsPerDelivery": 2,
                },
            }
            sub_id = await c.subscribe(filter={"eventTypes": ["ci.*"]}, delivery=daily)
            nine = datetime.fromisoformat(control_sub(refserver, sub_id)["nextCronAt"])
            assert nine.astimezone(ZoneInfo("America/New_York")).hour == 9
            for n in range(3):
                result = emit(refserver, "ci.build", data={"n": n})
                assert result["delivered"] == [] and sub_ids(result["queued"]) == [sub_id]
            assert control_sub(refserver, sub_id)["pending"] == 2  # full: the oldest went
            await settle()
            assert c.inbox.items == []
            flushed = refserver.post("/control/mcpe/flush", {"subscriptionId": sub_id})
            assert [e["data"] for e in flushed["events"]] == [{"n": 1}, {"n": 2}]
            assert flushed["expired"] is False
            await wait_for(lambda: len(c.inbox.of("events/batch")) == 1)
            # Nothing pending: a firing sends nothing.
            assert refserver.post("/control/mcpe/flush", {"subscriptionId": sub_id})["events"] == []
            await settle()
        (batch,) = c.inbox.of("events/batch")
        assert batch["subscriptionId"] == sub_id
        assert [e["data"] for e in batch["events"]] == [{"n": 1}, {"n": 2}]
        assert all(set(e) == {"id", "type", "data", "metadata"} for e in batch["events"])
        assert control_sub(refserver, sub_id)["status"] == "active"

    run(body)


def test_a_real_cron_firing_sends_the_batch(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            every_second = {
                "channels": ["cron"],
                "cronSchedule": {"expression": "* * * * * *", "timezone": "Europe/Paris"},
            }
            sub_id = await c.subscribe(delivery=every_second)
            emit(refserver, "tick.tock", count=2)
            await wait_for(lambda: len(c.inbox.of("events/batch")) == 1, timeout=3)
        (batch,) = c.inbox.of("events/batch")
        assert batch["subscriptionId"] == sub_id and len(batch["events"]) == 2
        assert len({e["id"] for e in batch["events"]}) == 2

    run(body)


def test_scheduled_delivery_sends_a_batch_then_expires(refserver: RefServer) -> None:
    async def body() -> None:
        async with mcpe(refserver) as c:
            later = {
                "channels": ["scheduled"],
                "scheduledDelivery": {"deliverAt": in_seconds(3600), "autoExpire": True},
            }
            sub_id = await c.subscribe(filter={"eventTypes": ["reminder.*"]}, delivery=later)
            emit(refserver, "reminder.due", data={"what": "tea"})
            flushed = refserver.post("/control/mcpe/flush", {"subscriptionId": sub_id})
            assert flushed["expired"] is True and len(flushed["events"]) == 1
            await wait_for(lambda: len(c.inbox.of("events/subscription_expired")) == 1)
            (listed,) = (await c.ok("events_list", {"status": "expired"}))["subscriptions"]
            assert listed["subscriptionId"] == sub_id
            assert emit(refserver, "reminder.due")["queued"] == []
            # A delivery time already past fires at once (nothing pending, so no batch).
            past = {"channels": ["scheduled"], "scheduledDelivery": {"deliverAt": in_seconds(-60)}}
            gone = await c.subscribe(delivery=past)
            await wait_for(lambda: len(c.inbox.of("events/subscription_expired")) == 2)
        assert [m for m, _ in c.inbox.items] == [
            "events/batch",
            "events/subscription_expired",
            "events/subscription_expired",
        ]
        batch = c.inbox.of("events/batch")[0]
        assert batch["subscriptionId"] == sub_id
        assert batch["events"][0]["data"] == {"what": "tea"}
        expired = c.inbox.of("events/subscription_expired")
        assert expired == [{"subscriptionId": sub_id}, {"subscriptionId": gone}]

    run(body)
