"""The receiver over real HTTP under daphne: the ASGI size limit (declared and
chunked bodies), and the answers a server actually sees."""

from __future__ import annotations

import socket

import httpx
import pytest

from outbox.models import HostDelivery
from subscriptions.models import ReceivedEvent
from subscriptions.services.receiver import oversize_refused
from tests.subscriptions.support import (
    event_body,
    make_event_server,
    make_subscription,
    signed,
    wait_for,
)

# SQLite too (the sqlite marker): the receiver writes through the ORM there, from
# daphne's threads into one file.
pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


@pytest.fixture
def sub(live, tpersonas):
    server = make_event_server(tpersonas.acme)
    return make_subscription(tpersonas.alice, server, remote_id="sub_remote")


def url(live, sub) -> str:
    return f"{live.base_url}/webhooks/mcp/{sub.token}"


def test_an_event_is_accepted_and_a_replay_is_acknowledged(live, sub):
    headers, raw = signed(sub.secret, event_body("evt_http_1"))
    first = httpx.post(url(live, sub), content=raw, headers=headers)
    again = httpx.post(url(live, sub), content=raw, headers=headers)
    assert (first.status_code, again.status_code) == (200, 200)
    assert ReceivedEvent.objects.filter(subscription=sub).count() == 1
    assert HostDelivery.objects.filter(stream=sub.id).count() == 1


def test_bad_input_gets_its_answer_and_nothing_is_stored(live, sub):
    target = url(live, sub)
    headers, raw = signed(sub.secret, event_body("evt_http_2"))
    bad_signature = {**headers, "webhook-signature": "v1,AAAA"}
    assert httpx.post(target, content=raw, headers=bad_signature).status_code == 401
    stale, raw_stale = signed(sub.secret, event_body("evt_http_3"), at=0)
    assert httpx.post(target, content=raw_stale, headers=stale).status_code == 400
    malformed, raw_malformed = signed(sub.secret, "{oops")
    assert httpx.post(target, content=raw_malformed, headers=malformed).status_code == 400
    unknown = f"{live.base_url}/webhooks/mcp/unknown-token"
    assert httpx.post(unknown, content=raw, headers=headers).status_code == 404
    assert httpx.get(target).status_code == 405
    assert ReceivedEvent.objects.count() == 0


def test_a_declared_oversized_body_is_refused_before_it_is_read(live, sub):
    headers, _ = signed(sub.secret, event_body("evt_big"))
    raw = b'{"pad":"' + b"a" * (300 * 1024) + b'"}'
    answer = httpx.post(url(live, sub), content=raw, headers=headers)
    assert answer.status_code == 413
    assert answer.json()["error"]["code"] == "too_large"
    assert not ReceivedEvent.objects.filter(kind="event").exists()
    # SEP-3415 §"Webhook security": the server will not send it again: the host hears an event
    # may be missing.
    gaps = wait_for(
        lambda: list(HostDelivery.objects.filter(stream=sub.id, type="subscription.gap")),
        message="gap notice",
    )
    assert len(gaps) == 1 and gaps[0].body["data"]["reason"] == "too_large"
    sub.refresh_from_db()
    assert sub.truncated
    # Once per delivery: a retry of the same one adds nothing.
    oversize_refused(token=sub.token, webhook_id=headers["webhook-id"])
    assert HostDelivery.objects.filter(stream=sub.id, type="subscription.gap").count() == 1


def test_a_chunked_oversized_body_is_refused_as_it_streams(live, sub):
    headers, _ = signed(sub.secret, event_body("evt_chunked"))

    def chunks():
        yield b'{"pad":"'
        for _ in range(300):
            yield b"a" * 1024
        yield b'"}'

    answer = httpx.post(url(live, sub), content=chunks(), headers=headers)
    assert answer.status_code == 413
    assert not ReceivedEvent.objects.filter(kind="event").exists()


@pytest.fixture
def streaming_server(live):
    """The same ASGI application under uvicorn, which (unlike daphne, which
    buffers whole requests before calling the app) streams bodies to it."""
    from config import supervisor as sv
    from tests.live import ARTIFACTS, _env, free_port

    port = free_port()
    supervisor = sv.Supervisor(
        env=_env({"PUBLIC_BASE_URL": f"http://127.0.0.1:{port}"}), log_dir=ARTIFACTS
    )
    child = supervisor.start(
        "uvicorn",
        [
            sv.python(),
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--lifespan",
            "off",
            "--log-level",
            "warning",
        ],
    )
    try:
        sv.wait_for_http(f"http://127.0.0.1:{port}/healthz", process=child.process, timeout=30)
        yield port
    finally:
        supervisor.stop_all()


def test_the_limit_is_enforced_without_waiting_for_the_whole_body(streaming_server, sub):
    """A client that declares 300 KiB, or streams chunks past the limit, is
    answered 413 while it is still sending."""
    with socket.create_connection(("127.0.0.1", streaming_server), timeout=5) as conn:
        conn.sendall(
            f"POST /webhooks/mcp/{sub.token} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nContent-Length: {300 * 1024}\r\n\r\n".encode()
        )
        assert conn.recv(1024).startswith(b"HTTP/1.1 413")
    with socket.create_connection(("127.0.0.1", streaming_server), timeout=5) as conn:
        conn.sendall(
            f"POST /webhooks/mcp/{sub.token} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
        )
        piece = b"a" * 65536
        for _ in range(5):  # 320 KiB, then stop sending (the body never ends)
            conn.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        assert conn.recv(1024).startswith(b"HTTP/1.1 413")
    assert not ReceivedEvent.objects.filter(kind="event").exists()


def test_a_small_chunked_body_is_accepted(live, sub):
    headers, raw = signed(sub.secret, event_body("evt_small_chunked"))

    def chunks():
        yield raw[:10]
        yield raw[10:]

    assert httpx.post(url(live, sub), content=chunks(), headers=headers).status_code == 200
    assert ReceivedEvent.objects.filter(event_id="evt_small_chunked").exists()
