"""docs/reliability.md row 2: Redis restarted while deliveries and broadcasts flow.

A Redis of the test's own (its own port, nothing saved, so a restart loses
every queued task and every channel-layer group) under a stack of its own
(daphne, a Celery worker and beat). Events arrive at the webhook receiver
before, during and after the restart; the host must get each exactly once,
and a live socket must hear of events again afterwards, with no process
restarted.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import threading
import time
from collections import Counter

import httpx
import pytest
import websockets
from django.db import connection
from django.test import Client

from config import supervisor as sv
from outbox.models import HostDelivery
from outbox.services import host_endpoint_set
from tests.live import ARTIFACTS, _env, free_port
from tests.subscriptions.support import (
    SYSTEM,
    HostReceiver,
    approve_events,
    event_body,
    make_event_server,
    make_subscription,
    signed,
    wait_for,
)

pytestmark = pytest.mark.processes

REDIS = shutil.which("redis-server")


class OwnRedis:
    """redis-server on a port of its own, stopped and started by the test."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        assert REDIS is not None
        self.process = subprocess.Popen(
            [REDIS, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                import redis

                if redis.Redis(port=self.port, socket_timeout=1).ping():
                    return
            except Exception:  # not up yet
                time.sleep(0.05)
        raise AssertionError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()  # as a crash would: nothing flushed, nothing said
            self.process.wait(timeout=10)
        self.process = None


@pytest.fixture
def own_redis():
    if REDIS is None:
        pytest.fail("redis-server is not on PATH: this test must run")
    server = OwnRedis()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def stack(transactional_db, own_redis):
    """daphne + worker + beat on the test's own Redis."""
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    env = _env(
        {
            "PUBLIC_BASE_URL": base_url,
            "REDIS_URL": own_redis.url,
            # Redis is under test, not the host's answer time: a POST that
            # outlasts the suite's 2 s timeout on a loaded machine is sent
            # again by design (same webhook-id) and would read as a double.
            "HOST_DELIVERY_TIMEOUT": "10",
        }
    )
    supervisor = sv.Supervisor(env=env, log_dir=ARTIFACTS / "redis-restart")
    web = supervisor.start("daphne", sv.daphne_argv(port))
    supervisor.start("worker", sv.celery_worker_argv(queue=os.environ["CELERY_QUEUE"]))
    supervisor.start("beat", sv.celery_beat_argv(schedule_path=str(ARTIFACTS / f"beat-{port}")))
    try:
        sv.wait_for_http(f"{base_url}/healthz", process=web.process, timeout=60)
        yield base_url, supervisor
    finally:
        supervisor.stop_all()


def _cookie(user) -> str:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return f"sessionid={client.cookies['sessionid'].value}"


class Listener:
    """A live socket (as a page holds one) in a thread of its own, counting
    what arrives; it reconnects when closed, as ``static/js/live.js`` does."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.url, self.headers = url, headers
        self.messages: list[tuple[float, str]] = []
        self.connects = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _run(self) -> None:
        while not self._stop.is_set():
            try:
                async with websockets.connect(self.url, additional_headers=self.headers) as socket:
                    self.connects += 1
                    while not self._stop.is_set():
                        try:
                            text = await asyncio.wait_for(socket.recv(), timeout=0.2)
                        except TimeoutError:
                            continue
                        self.messages.append((time.monotonic(), str(text)))
            except Exception:  # closed or refused: try again, as the page does
                await asyncio.sleep(0.5)

    def since(self, moment: float) -> int:
        return sum(1 for at, _ in self.messages if at > moment)

    def __enter__(self) -> Listener:
        self._thread.start()
        wait_for(lambda: self.connects, timeout=30, message="the live socket open")
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


class Sender:
    """A server delivering events to the receiver, retrying what is not
    acknowledged (as a webhook sender does) until it is."""

    def __init__(self, url: str, secret: str) -> None:
        self.url, self.secret = url, secret
        self.acknowledged: list[str] = []
        self.refused: Counter[int | str] = Counter()

    def deliver(self, event_id: str, *, deadline: float = 60) -> None:
        headers, raw = signed(self.secret, event_body(event_id), webhook_id=f"msg_{event_id}")
        until = time.monotonic() + deadline
        while time.monotonic() < until:
            try:
                answer = httpx.post(self.url, content=raw, headers=headers, timeout=10)
            except httpx.HTTPError as error:
                self.refused[type(error).__name__] += 1
            else:
                if answer.status_code == 200:
                    self.acknowledged.append(event_id)
                    return
                self.refused[answer.status_code] += 1
            time.sleep(0.3)
        raise AssertionError(f"{event_id} never acknowledged: {self.refused}")


def test_deliveries_and_broadcasts_survive_a_redis_restart(stack, own_redis, tpersonas, receiver):
    base_url, supervisor = stack
    _, receiver.secret = host_endpoint_set(host=tpersonas.acme, url=receiver.url, actor=SYSTEM)
    server = make_event_server(tpersonas.acme)
    # Events reach the host only on the user's live consent (checked again when forwarded).
    approve_events(tpersonas.alice, server, ["build.finished"])
    sub = make_subscription(tpersonas.alice, server, remote_id="sub_remote")
    sender = Sender(f"{base_url}/webhooks/mcp/{sub.token}", sub.secret)
    socket_url = base_url.replace("http://", "ws://") + "/ws/live/"
    headers = {"Cookie": _cookie(tpersonas.alice), "Origin": base_url}

    with Listener(socket_url, headers) as listener:
        for n in range(5):
            sender.deliver(f"before-{n}")
        wait_for(lambda: len(_event_ids(receiver)) == 5, timeout=60, message="the first five")
        assert listener.since(0) > 0, "no live update before the restart"

        # Redis goes away mid-flow: events keep arriving while it is down.
        own_redis.stop()
        down = [threading.Thread(target=sender.deliver, args=(f"during-{n}",)) for n in range(5)]
        for thread in down:
            thread.start()
        time.sleep(2)
        own_redis.start()  # empty: every queued task and group membership is gone
        restarted = time.monotonic()
        for thread in down:
            thread.join(timeout=90)
        for n in range(5):
            sender.deliver(f"after-{n}")

        expected = {f"{phase}-{n}" for phase in ("before", "during", "after") for n in range(5)}
        wait_for(
            lambda: _event_ids(receiver) >= expected,
            timeout=90,
            message=f"every event forwarded (acknowledged: {len(sender.acknowledged)})",
        )
        # The page hears of events again: on its open socket or after reconnecting.
        wait_for(
            lambda: listener.since(restarted) > 0 or _nudge(sender),
            timeout=60,
            message="a live update after the restart",
        )

    everything = set(sender.acknowledged)  # the nudges too
    wait_for(lambda: _event_ids(receiver) >= everything, timeout=60, message="the nudges forwarded")
    time.sleep(2)  # anything still on its way to the host would land now
    sent = Counter(got["data"]["event"]["eventId"] for got in receiver.accepted("event.received"))
    assert set(sent) == everything and set(sent.values()) == {1}, sent  # each once
    by_delivery = Counter(got["webhook_id"] for got in receiver.accepted("event.received"))
    assert set(by_delivery.values()) == {1}, by_delivery
    connection.close()
    stored = HostDelivery.objects.filter(host=tpersonas.acme, type="event.received").count()
    assert stored == len(everything)
    assert not supervisor.dead_children(), "a process died instead of reconnecting"
    print(
        f"receiver answers while Redis was down: {dict(sender.refused)}; "
        f"socket connects: {listener.connects}"
    )


_nudges = iter(range(1000))


def _nudge(sender: Sender) -> bool:
    """Another event, so there is something new to hear of."""
    sender.deliver(f"nudge-{next(_nudges)}")
    return False


def _event_ids(receiver: HostReceiver) -> set[str]:
    return {got["data"]["event"]["eventId"] for got in receiver.accepted("event.received")}
