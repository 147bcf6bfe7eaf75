"""Webhook subscriptions: verification, delivery, refresh, rotation, TTL, envelopes."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest
from standardwebhooks import Webhook

from tests.refserver.support import (
    MODES,
    Receiver,
    RefServer,
    call,
    connect,
    expect_error,
    new_secret,
    parse_iso,
    run,
    subscribe_params,
    wait_for,
)

pytestmark = pytest.mark.processes

# -- events/subscribe and webhook delivery ------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_subscribe_verifies_the_endpoint_then_delivers_signed_events(
    refserver: RefServer, receiver: Receiver, mode: str
) -> None:
    secret = new_secret()
    url = receiver.add("/hooks/a", secret)

    async def body() -> None:
        async with connect(refserver, mode) as client:
            result = await call(
                client,
                "events/subscribe",
                subscribe_params(
                    "build.finished", url, secret, arguments={"repo": "acme/api"}, ttlMs=60_000
                ),
            )
        assert result["id"].startswith("sub_")
        assert result["truncated"] is False
        assert result["cursor"] == "0"
        assert result["refreshBefore"].endswith("Z")
        assert "deliveryStatus" not in result
        verification = receiver.at("/hooks/a", "verification")
        assert len(verification) == 1 and verification[0].verified
        assert verification[0].headers["webhook-id"].startswith("msg_verification_")
        assert verification[0].headers["x-mcp-subscription-id"] == result["id"]

        emitted = refserver.post(
            "/control/emit",
            {"name": "build.finished", "data": {"repo": "acme/api", "status": "success"}},
        )
        refserver.post(
            "/control/emit",
            {"name": "build.finished", "data": {"repo": "other/repo", "status": "failure"}},
        )
        assert emitted["subscriptions"] == [result["id"]]
        (delivery,) = receiver.wait("/hooks/a", "event", 1)
        assert delivery.verified
        assert delivery.headers["webhook-id"] == emitted["eventId"]
        assert delivery.headers["x-mcp-subscription-id"] == result["id"]
        Webhook(secret).verify(delivery.raw, delivery.headers)
        assert delivery.body == {
            "eventId": emitted["eventId"],
            "name": "build.finished",
            "timestamp": emitted["timestamp"],
            "data": {"repo": "acme/api", "status": "success"},
            "cursor": "1",
        }
        time.sleep(0.2)
        assert len(receiver.at("/hooks/a", "event")) == 1  # the other repo was filtered out

    run(body)


def test_subscribe_fails_when_the_challenge_is_not_echoed(
    refserver: RefServer, receiver: Receiver
) -> None:
    secret = new_secret()
    url = receiver.add("/hooks/silent", secret, echo=False)

    async def body() -> None:
        async with connect(refserver, "auto") as client:
            err = await expect_error(
                call(client, "events/subscribe", subscribe_params("ticket.created", url, secret))
            )
            assert err.code == -32015
            assert err.error.data == {"reason": "challenge_failed"}
            dead = "http://127.0.0.1:1/nothing"
            err = await expect_error(
                call(client, "events/subscribe", subscribe_params("ticket.created", dead, secret))
            )
            assert err.code == -32015
            assert err.error.data == {"reason": "connection_refused"}
        assert refserver.get("/control/subscriptions")["subscriptions"] == []

    run(body)


def test_subscribe_rejects_bad_params_with_spec_error_codes(
    refserver: RefServer, receiver: Receiver
) -> None:
    secret = new_secret()
    url = receiver.add("/hooks/v", secret)

    async def body() -> None:
        async with connect(refserver, "legacy") as client:

            async def code_of(params: dict[str, Any]) -> tuple[int, Any]:
                err = await expect_error(call(client, "events/subscribe", params))
                return err.code, err.error.data

            assert (
                await code_of(subscribe_params("ticket.created", "http://example.com/h", secret))
            )[0] == -32602
            assert (await code_of(subscribe_params("ticket.created", "ftp://127.0.0.1/h", secret)))[
                0
            ] == -32602
            assert (await code_of(subscribe_params("ticket.created", url, "whsec_" + "QUJD")))[
                0
            ] == -32602
            assert (await code_of(subscribe_params("ticket.created", url, "not-a-secret")))[
                0
            ] == -32602
            assert (await code_of(subscribe_params("ticket.created", url, new_secret(65))))[
                0
            ] == -32602
            assert (await code_of(subscribe_params("build.finished", url, secret)))[
                0
            ] == -32602  # repo missing
            bad_type = subscribe_params("build.finished", url, secret, arguments={"repo": 5})
            assert (await code_of(bad_type))[0] == -32602
            assert await code_of(subscribe_params("nope.none", url, secret)) == (
                -32011,
                {"kind": "event", "name": "nope.none"},
            )
            assert await code_of(subscribe_params("deploy.status", url, secret)) == (
                -32014,
                {"feature": "deliveryMode", "value": "webhook"},
            )
            assert (await code_of(subscribe_params("ticket.created", url, new_secret(24))))[
                0
            ] != -32602

    run(body)


def test_refresh_keeps_the_id_and_rotation_dual_signs(
    refserver: RefServer, receiver: Receiver
) -> None:
    old, new = new_secret(), new_secret()
    url = receiver.add("/hooks/r", old)

    async def body() -> None:
        async with connect(refserver, "auto") as client:
            first = await call(
                client, "events/subscribe", subscribe_params("ticket.created", url, old, ttlMs=5000)
            )
            receiver.endpoints["/hooks/r"].secrets = [
                new
            ]  # the receiver registers the new secret first
            refreshed = await call(
                client,
                "events/subscribe",
                subscribe_params("ticket.created", url, new, ttlMs=5000, cursor="0"),
            )
        assert refreshed["id"] == first["id"]
        assert refreshed["deliveryStatus"] == {
            "active": True,
            "lastDeliveryAt": None,
            "lastError": None,
        }
        assert (
            len(receiver.at("/hooks/r", "verification")) == 1
        )  # verified once per (principal, url)
        refserver.post(
            "/control/emit", {"name": "ticket.created", "data": {"key": "T-1", "title": "x"}}
        )
        (delivery,) = receiver.wait("/hooks/r", "event", 1)
        assert len(delivery.headers["webhook-signature"].split(" ")) == 2
        Webhook(old).verify(delivery.raw, delivery.headers)
        Webhook(new).verify(delivery.raw, delivery.headers)
        calls = refserver.received("subscribe")["subscribe"]
        assert (
            calls[0]["delivery"]["secretFingerprint"] != calls[1]["delivery"]["secretFingerprint"]
        )

    run(body)


def test_principals_come_from_the_authorization_header(
    refserver: RefServer, receiver: Receiver
) -> None:
    secret = new_secret()
    url = receiver.add("/hooks/p", secret)

    async def body() -> None:
        ids = []
        for headers in ({"authorization": "Bearer alice"}, {"authorization": "Bearer bob"}, None):
            async with connect(refserver, "auto", headers=headers) as client:
                ids.append(
                    (
                        await call(
                            client, "events/subscribe", subscribe_params("alert.fired", url, secret)
                        )
                    )["id"]
                )
        assert len(set(ids)) == 3
        principals = sorted(
            s["principal"] for s in refserver.get("/control/subscriptions")["subscriptions"]
        )
        assert principals == ["Bearer alice", "Bearer bob", "anonymous"]
        assert len(receiver.at("/hooks/p", "verification")) == 3  # one per (principal, url)

    run(body)


@pytest.mark.parametrize("mode", MODES)
def test_unsubscribe_removes_and_then_reports_not_found(
    refserver: RefServer, receiver: Receiver, mode: str
) -> None:
    secret = new_secret()
    url = receiver.add("/hooks/u", secret)

    async def body() -> None:
        async with connect(refserver, mode) as client:
            args = {"project": "OPS"}
            await call(
                client,
                "events/subscribe",
                subscribe_params("ticket.created", url, secret, arguments=args),
            )
            key = {"name": "ticket.created", "arguments": args, "delivery": {"url": url}}
            assert (await call(client, "events/unsubscribe", key)).get(
                "resultType", "complete"
            ) == "complete"
            err = await expect_error(call(client, "events/unsubscribe", key))
            assert err.code == -32011
            assert err.error.data == {"kind": "subscription"}
        assert refserver.get("/control/subscriptions")["subscriptions"] == []

    run(body)


def test_ttl_is_clamped_null_means_no_expiry_and_expired_subscriptions_stop(
    refserver: RefServer, receiver: Receiver
) -> None:
    secret = new_secret()
    url = receiver.add("/hooks/t", secret)

    async def body() -> None:
        async with connect(refserver, "auto") as client:
            forever = await call(
                client, "events/subscribe", subscribe_params("alert.fired", url, secret, ttlMs=None)
            )
            assert forever["refreshBefore"] is None
            before = time.time()
            short = await call(
                client,
                "events/subscribe",
                subscribe_params("ticket.created", url, secret, ttlMs=1),
            )
        granted = parse_iso(short["refreshBefore"]) - before
        assert 0.2 < granted < 2  # clamped up to the 300 ms minimum
        await anyio.sleep(0.5)
        out = refserver.post(
            "/control/emit", {"name": "ticket.created", "data": {"key": "T", "title": "t"}}
        )
        assert out["subscriptions"] == []
        refserver.post("/control/emit", {"name": "alert.fired", "data": {"summary": "still here"}})
        receiver.wait("/hooks/t", "event", 1)

    run(body)


def test_forget_then_refresh_replays_from_the_client_cursor(
    refserver: RefServer, receiver: Receiver
) -> None:
    secret = new_secret()
    url = receiver.add("/hooks/f", secret)

    async def body() -> None:
        async with connect(refserver, "legacy") as client:
            await call(client, "events/subscribe", subscribe_params("alert.fired", url, secret))
            for n in range(2):
                refserver.post(
                    "/control/emit", {"name": "alert.fired", "data": {"summary": f"a{n}"}}
                )
            delivered = receiver.wait("/hooks/f", "event", 2)
            cursor = delivered[0].body["cursor"]
            assert refserver.post("/control/forget")["forgotten"]
            refserver.post("/control/emit", {"name": "alert.fired", "data": {"summary": "a2"}})
            again = await call(
                client,
                "events/subscribe",
                subscribe_params("alert.fired", url, secret, cursor=cursor),
            )
            assert again["truncated"] is False and "deliveryStatus" not in again
            events = receiver.wait("/hooks/f", "event", 4)
            assert [e.body["data"]["summary"] for e in events] == ["a0", "a1", "a1", "a2"]
            assert (
                len(receiver.at("/hooks/f", "verification")) == 2
            )  # verification was forgotten too
            stale = await call(
                client,
                "events/subscribe",
                subscribe_params("ticket.created", url, secret, cursor="999"),
            )
            assert stale["truncated"] is True and stale["cursor"] == "0"

    run(body)


def test_retries_then_suspends_and_a_refresh_reactivates(
    refserver: RefServer, receiver: Receiver
) -> None:
    secret = new_secret()
    url = receiver.add("/hooks/s", secret)
    refserver.post("/control/config", {"suspend_after_failures": 1})

    async def body() -> None:
        async with connect(refserver, "auto") as client:
            params = subscribe_params("alert.fired", url, secret)
            await call(client, "events/subscribe", params)
            receiver.endpoints["/hooks/s"].statuses = [500, 503, 500]
            emitted = refserver.post(
                "/control/emit", {"name": "alert.fired", "data": {"summary": "x"}}
            )
            attempts = receiver.wait("/hooks/s", "event", 3)
            assert {a.headers["webhook-id"] for a in attempts} == {emitted["eventId"]}
            # The server marks delivery suspended once the last retry is given up.
            await wait_for(
                lambda: (
                    not refserver.get("/control/subscriptions")["subscriptions"][0][
                        "deliveryStatus"
                    ]["active"]
                )
            )
            (sub,) = refserver.get("/control/subscriptions")["subscriptions"]
            assert sub["deliveryStatus"]["active"] is False
            assert sub["deliveryStatus"]["lastError"] == "http_5xx"
            assert sub["deliveryStatus"]["failedSince"]
            refreshed = await call(client, "events/subscribe", {**params, "cursor": "0"})
            assert refreshed["deliveryStatus"]["active"] is False
            assert refreshed["deliveryStatus"]["lastError"] == "http_5xx"
            redelivered = receiver.wait("/hooks/s", "event", 4)[-1]
            assert redelivered.status == 200 and redelivered.body["eventId"] == emitted["eventId"]
            (sub,) = refserver.get("/control/subscriptions")["subscriptions"]
            assert sub["deliveryStatus"]["active"] is True

    run(body)


def test_a_410_stops_delivery_for_that_subscription(
    refserver: RefServer, receiver: Receiver
) -> None:
    secret = new_secret()
    url = receiver.add("/hooks/g", secret)

    async def body() -> None:
        async with connect(refserver, "auto") as client:
            await call(client, "events/subscribe", subscribe_params("alert.fired", url, secret))
        receiver.endpoints["/hooks/g"].statuses = [410]
        refserver.post("/control/emit", {"name": "alert.fired", "data": {"summary": "1"}})
        receiver.wait("/hooks/g", "event", 1)
        await wait_for(
            lambda: refserver.get("/control/subscriptions")["subscriptions"][0]["status"] == "gone"
        )
        out = refserver.post("/control/emit", {"name": "alert.fired", "data": {"summary": "2"}})
        assert out["subscriptions"] == []
        await anyio.sleep(0.2)
        assert len(receiver.at("/hooks/g", "event")) == 1
        (sub,) = refserver.get("/control/subscriptions")["subscriptions"]
        assert sub["status"] == "gone"

    run(body)


def test_gap_and_terminated_envelopes_are_signed_and_delivered(
    refserver: RefServer, receiver: Receiver
) -> None:
    secret = new_secret()
    url = receiver.add("/hooks/e", secret)

    async def body() -> None:
        async with connect(refserver, "auto") as client:
            sub = await call(
                client, "events/subscribe", subscribe_params("alert.fired", url, secret)
            )
        refserver.post("/control/emit", {"name": "alert.fired", "data": {"summary": "1"}})
        receiver.wait("/hooks/e", "event", 1)
        refserver.post("/control/gap", {"id": sub["id"]})
        (gap,) = receiver.wait("/hooks/e", "gap", 1)
        assert gap.verified and gap.body == {"type": "gap", "cursor": "1"}
        assert gap.headers["webhook-id"].startswith("msg_gap_")
        refserver.post("/control/terminate", {"id": sub["id"]})
        (terminated,) = receiver.wait("/hooks/e", "terminated", 1)
        assert terminated.body["error"]["code"] == -32012
        assert refserver.get("/control/subscriptions")["subscriptions"] == []
        refserver.post("/control/terminate", {"id": sub["id"]}, expect=404)

    run(body)


def test_broken_signing_modes_reach_the_receiver(refserver: RefServer, receiver: Receiver) -> None:
    secret = new_secret()
    url = receiver.add("/hooks/b", secret)

    async def body() -> None:
        async with connect(refserver, "auto") as client:
            await call(client, "events/subscribe", subscribe_params("alert.fired", url, secret))
        refserver.post("/control/config", {"retry_delays_ms": [], "suspend_after_failures": 10})
        for mode in ("bad_signature", "stale_timestamp", "missing_signature"):
            refserver.post(
                "/control/emit", {"name": "alert.fired", "data": {"summary": mode}, "signing": mode}
            )
        receiver.wait("/hooks/b", None, 4)
        assert [d.status for d in receiver.at("/hooks/b")[1:]] == [401, 401, 401]
        deliveries = refserver.received("deliveries")["deliveries"]
        assert [d["error"] for d in deliveries[1:]] == ["http_4xx"] * 3

    run(body)


def test_changing_event_types_terminates_subscriptions_of_removed_types(
    refserver: RefServer, receiver: Receiver
) -> None:
    secret = new_secret()
    url = receiver.add("/hooks/c", secret)

    async def body() -> None:
        async with connect(refserver, "auto") as client:
            await call(client, "events/subscribe", subscribe_params("alert.fired", url, secret))
            types_now = refserver.get("/control/event-types")["types"]
            kept = [t for t in types_now if t["name"] != "alert.fired"]
            changed = refserver.post("/control/event-types", {"types": kept})
            assert len(changed["terminated"]) == 1
            (terminated,) = receiver.wait("/hooks/c", "terminated", 1)
            assert terminated.body["error"]["code"] == -32011
            assert terminated.body["error"]["data"]["kind"] == "event"
            page = await call(client, "events/list", {})
            names = [e["name"] for e in page["events"]]
            assert "alert.fired" not in names

    run(body)


def test_require_auth_refuses_anonymous_subscribers(
    refserver: RefServer, receiver: Receiver
) -> None:
    secret = new_secret()
    url = receiver.add("/hooks/auth", secret)
    refserver.post("/control/config", {"require_auth": True})

    async def body() -> None:
        async with connect(refserver, "auto") as client:
            err = await expect_error(
                call(client, "events/subscribe", subscribe_params("alert.fired", url, secret))
            )
            assert err.code == -32012
            assert err.error.data == {"reason": "unauthenticated"}
        async with connect(refserver, "auto", headers={"authorization": "Bearer k"}) as client:
            ok = await call(
                client, "events/subscribe", subscribe_params("alert.fired", url, secret)
            )
            assert ok["id"].startswith("sub_")

    run(body)
