"""Push delivery: the session worker holds one ``events/stream`` per push
subscription on the reference server. Real processes: daphne, the Celery
worker (forwarding to the host), session workers started and killed by the
tests. Conformance cases (docs/conformance.md) are named by number."""

from __future__ import annotations

import time

import pytest
from django.utils import timezone

from outbox.models import HostDelivery
from subscriptions.models import Subscription
from switchboard.models import HeldStream
from tests.subscriptions.support import SYSTEM, reference_server_for_alice, wait_for

pytestmark = pytest.mark.processes

EVENT = "deploy.status"  # push and poll only


@pytest.fixture
def ref_server(live, tpersonas, refserver, host_receiver):
    return reference_server_for_alice(tpersonas, refserver, host_receiver, [EVENT])


def open_streams(refserver) -> list[dict]:
    return refserver.control("GET", "subscriptions")["streams"]


def stream_requests(refserver) -> list[dict]:
    return refserver.control("GET", "received?kinds=stream")["stream"]


def subscribe_push(tpersonas, server) -> Subscription:
    created = tpersonas.acme_api.post(
        "/subscriptions",
        json={"user": "alice", "server": server.id, "event": EVENT, "arguments": {}},
    )
    assert created.status_code == 201, created.content
    assert created.json()["mode"] == "push"
    return wait_for(
        lambda: Subscription.objects.filter(pk=created.json()["id"], status="active").first(),
        timeout=30,
        message="active once the stream is confirmed",
    )


def emit(refserver, n=1):
    return (
        refserver.control(
            "POST", "emit", {"name": EVENT, "data": {"state": "rolling"}, "count": n}
        )["emitted"]
        if n > 1
        else [refserver.control("POST", "emit", {"name": EVENT, "data": {"state": "rolling"}})]
    )


def forwarded_ids(sub) -> list[str]:
    """What the outbox holds for the host, in arrival order."""
    return [
        d.body["data"]["event"]["eventId"]
        for d in HostDelivery.objects.filter(stream=sub.id, type="event.received").order_by("seq")
    ]


def test_40_events_are_delivered_once_and_the_stream_health_is_shown(
    ref_server, tpersonas, refserver, host_receiver, session_worker
):
    sub = subscribe_push(tpersonas, ref_server)
    assert sub.cursor is not None  # case 40: the active frame's cursor persisted
    emitted = emit(refserver, 3)
    wait_for(lambda: len(host_receiver.accepted("event.received")) == 3, message="forwarded")
    assert forwarded_ids(sub) == [e["eventId"] for e in emitted]
    assert not host_receiver.rejected
    api = tpersonas.acme_api.get(f"/subscriptions/{sub.id}").json()
    assert api["mode"] == "push" and api["stream"]["state"] == "connected"
    assert api["stream"]["connected_since"] and api["stream"]["held_by"]
    # case 42: heartbeats (every 0.5 s here) move the cursor and the liveness
    # (the latest frame's time is written with the lease renewal).
    watched_from = timezone.now()
    time.sleep(6)
    wait_for(
        lambda: HeldStream.objects.get(pk=f"push:{sub.id}").last_frame_at > watched_from,
        timeout=15,
        message="the last frame's time written",
    )
    held = HeldStream.objects.get(pk=f"push:{sub.id}")
    assert held.reconnects == 0 and held.state == "connected"
    assert len(open_streams(refserver)) == 1


def test_45_a_dropped_stream_reconnects_from_the_cursor_nothing_lost_or_doubled(
    ref_server, tpersonas, refserver, session_worker
):
    sub = subscribe_push(tpersonas, ref_server)
    first = emit(refserver, 2)
    wait_for(lambda: len(forwarded_ids(sub)) == 2, message="the first two")
    cursor = Subscription.objects.get(pk=sub.pk).cursor
    refserver.control("POST", "stream-drop", {})
    # Emitted while nobody listens: the reconnect replays them from the cursor.
    later = emit(refserver, 2)
    wait_for(lambda: len(stream_requests(refserver)) == 2, message="reconnected")
    assert stream_requests(refserver)[1]["cursor"] is not None
    assert int(stream_requests(refserver)[1]["cursor"]) >= int(cursor)
    wait_for(lambda: len(forwarded_ids(sub)) == 4, message="the two emitted in between")
    time.sleep(1)
    assert forwarded_ids(sub) == [e["eventId"] for e in first + later]
    assert HeldStream.objects.get(pk=f"push:{sub.id}").reconnects >= 1


def test_43_silence_past_twice_the_heartbeat_reconnects(
    ref_server, tpersonas, refserver, session_worker
):
    sub = subscribe_push(tpersonas, ref_server)
    refserver.control("POST", "config", {"heartbeat_ms": 600_000})  # heartbeats stop
    # The stream open now still waits for its 0.5 s beat, then goes quiet.
    wait_for(
        lambda: len(stream_requests(refserver)) >= 2,
        timeout=20,
        message="aborted after PUSH_IDLE_TIMEOUT and sent again",
    )
    held = HeldStream.objects.get(pk=f"push:{sub.id}")
    assert held.reconnects >= 1 and "timeout" in held.last_error
    assert stream_requests(refserver)[-1]["cursor"] == Subscription.objects.get(pk=sub.pk).cursor


def test_44_an_error_keeps_the_stream_and_terminated_ends_it_without_reconnect(
    ref_server, tpersonas, refserver, host_receiver, session_worker
):
    sub = subscribe_push(tpersonas, ref_server)
    refserver.control("POST", "stream-error", {})
    emitted = emit(refserver)
    wait_for(lambda: forwarded_ids(sub) == [emitted[0]["eventId"]], message="still streaming")
    assert len(stream_requests(refserver)) == 1  # the error did not cost a reconnect
    refserver.control("POST", "terminate", {"stream": True, "name": EVENT})
    ended = wait_for(
        lambda: Subscription.objects.filter(pk=sub.pk, status="terminated").first(),
        message="terminated",
    )
    assert ended.last_error == "forbidden"
    wait_for(
        lambda: [
            d
            for d in host_receiver.accepted("subscription.updated")
            if d["data"]["status"] == "terminated"
        ],
        message="the host told",
    )
    time.sleep(2)
    assert len(stream_requests(refserver)) == 1  # no reconnect
    assert open_streams(refserver) == []


def test_revoke_closes_the_stream_within_two_seconds(
    ref_server, tpersonas, refserver, session_worker
):
    sub = subscribe_push(tpersonas, ref_server)
    wait_for(lambda: open_streams(refserver), message="open")
    started = time.monotonic()
    answer = tpersonas.acme_api.delete(f"/subscriptions/{sub.id}").json()
    assert answer["status"] == "revoked"
    wait_for(lambda: not open_streams(refserver), timeout=5, message="closed")
    assert time.monotonic() - started < 2.0
    wait_for(
        lambda: HeldStream.objects.get(pk=f"push:{sub.id}").state == "ended",
        message="the lease let go",
    )


def test_consent_withdrawn_closes_the_stream_and_pause_resume_reopens_from_the_cursor(
    ref_server, tpersonas, refserver, session_worker
):
    sub = subscribe_push(tpersonas, ref_server)
    api = tpersonas.acme_api
    wait_for(lambda: open_streams(refserver), message="open")
    assert api.post(f"/subscriptions/{sub.id}/pause").json()["status"] == "paused"
    wait_for(lambda: not open_streams(refserver), timeout=3, message="closed while paused")
    emitted = emit(refserver)
    cursor = Subscription.objects.get(pk=sub.pk).cursor
    assert api.post(f"/subscriptions/{sub.id}/resume").json()["status"] == "active"
    wait_for(lambda: forwarded_ids(sub) == [emitted[0]["eventId"]], message="caught up")
    assert stream_requests(refserver)[-1]["cursor"] == cursor

    from consent.models import Grant, GrantStatus
    from consent.services import grant_revoke

    grant = Grant.objects.get(user=tpersonas.alice, server=ref_server, status=GrantStatus.ACTIVE)
    started = time.monotonic()
    grant_revoke(grant=grant, actor=SYSTEM)
    wait_for(lambda: not open_streams(refserver), timeout=5, message="closed on withdrawal")
    assert time.monotonic() - started < 2.0
    assert Subscription.objects.get(pk=sub.pk).status == "revoked"


def test_a_killed_worker_loses_nothing_and_two_workers_never_hold_one_stream(
    ref_server, tpersonas, refserver, session_workers
):
    first = session_workers.start()
    second = session_workers.start()
    sub = subscribe_push(tpersonas, ref_server)
    before = emit(refserver, 3)
    wait_for(lambda: len(forwarded_ids(sub)) == 3, message="forwarded")
    time.sleep(3)  # several reconcile rounds of both workers
    assert len(open_streams(refserver)) == 1
    assert len(stream_requests(refserver)) == 1

    holder = HeldStream.objects.get(pk=f"push:{sub.id}").holder
    victim = first if holder.split(":")[1] == str(first.process.pid) else second
    session_workers.kill(victim)  # SIGKILL mid-stream: no lease released
    during = emit(refserver, 3)  # nobody forwards these until the takeover
    wait_for(
        lambda: HeldStream.objects.get(pk=f"push:{sub.id}").holder not in ("", holder),
        timeout=20,
        message="taken over once the lease ran out",
    )
    wait_for(lambda: len(forwarded_ids(sub)) == 6, timeout=20, message="the rest")
    time.sleep(1)
    assert forwarded_ids(sub) == [e["eventId"] for e in before + during]
    assert len(open_streams(refserver)) == 1


def test_47_list_changed_lists_every_page_again_and_a_removed_type_ends_its_subscription(
    ref_server, tpersonas, refserver, host_receiver, session_worker
):
    """The reference server speaks the sketch here, which announces catalogue
    changes on open event streams (SEP servers use subscriptions/listen: see
    tests/servers/test_listen_live.py)."""
    sub = subscribe_push(tpersonas, ref_server)
    listed_before = len(refserver.control("GET", "received?kinds=eventsList")["eventsList"])
    types = refserver.control("GET", "event-types")["types"]
    refserver.control("POST", "event-types", {"types": [t for t in types if t["name"] != EVENT]})
    ended = wait_for(
        lambda: Subscription.objects.filter(pk=sub.pk, status="revoked").first(),
        timeout=30,
        message="the subscription to the removed type ended",
    )
    pages = refserver.control("GET", "received?kinds=eventsList")["eventsList"][listed_before:]
    # Three types left at two per page: both pages read again, the second by its
    # cursor. (Another sync, e.g. the registration's, may interleave its own pages.)
    firsts = [i for i, p in enumerate(pages) if p["cursor"] is None]
    assert firsts and any(p["cursor"] is not None for p in pages[firsts[0] + 1 :]), pages
    assert ended.ended_at is not None
    wait_for(lambda: not open_streams(refserver), timeout=5, message="its stream closed")
    updated = wait_for(
        lambda: [
            d
            for d in host_receiver.accepted("subscription.updated")
            if d["data"]["status"] == "revoked"
        ],
        message="the host told",
    )
    assert updated[0]["data"]["subscription_id"] == sub.id


def test_streams_of_one_user_on_one_server_share_one_mcp_session(
    ref_server, tpersonas, refserver, session_worker
):
    def discovers() -> int:
        requests = refserver.control("GET", "received?kinds=requests")["requests"]
        return sum(1 for r in requests if r["method"] in ("server/discover", "initialize"))

    before = discovers()
    api = tpersonas.acme_api
    ids = [
        api.post(
            "/subscriptions",
            json={
                "user": "alice",
                "server": ref_server.id,
                "event": EVENT,
                "arguments": {"environment": env},
            },
        ).json()["id"]
        for env in ("prod", "dev", "test")
    ]
    wait_for(lambda: len(open_streams(refserver)) == 3, timeout=30, message="three streams")
    assert discovers() - before == 1  # one session carries the three streams
    emitted = refserver.control(
        "POST",
        "emit",
        {"name": EVENT, "data": {"state": "ok"}, "arguments": {"environment": "dev"}},
    )
    dev = Subscription.objects.get(pk=ids[1])
    wait_for(lambda: forwarded_ids(dev) == [emitted["eventId"]], message="routed to its stream")
    assert all(not forwarded_ids(Subscription.objects.get(pk=i)) for i in (ids[0], ids[2]))


def test_a_stream_the_server_refuses_ends_the_subscription_without_a_reconnect_loop(
    ref_server, tpersonas, refserver, host_receiver, session_worker
):
    refserver.control(
        "POST",
        "behaviour",
        {
            "method": "events/stream",
            "fail": "error",
            "error": {"code": -32012, "message": "Forbidden", "data": {"reason": "revoked"}},
        },
    )
    created = tpersonas.acme_api.post(
        "/subscriptions",
        json={"user": "alice", "server": ref_server.id, "event": EVENT, "arguments": {}},
    ).json()
    ended = wait_for(
        lambda: Subscription.objects.filter(pk=created["id"], status="terminated").first(),
        timeout=30,
        message="ended on the refusal",
    )
    assert ended.last_error == "forbidden"

    def asked() -> int:
        requests = refserver.control("GET", "received?kinds=requests")["requests"]
        return sum(1 for r in requests if r["method"] == "events/stream")

    time.sleep(2)
    assert asked() == 1  # refused once, not asked again
    assert HeldStream.objects.get(pk=f"push:{ended.id}").state == "ended"
