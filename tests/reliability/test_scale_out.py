"""docs/reliability.md row 13, scale-out: the production topology of docs/production.md on one
machine. haproxy (Debian's, round-robin, websockets) in front of two daphne
processes, two Celery workers, one active beat (a second stands by), two
session workers, the reference MCP server, one PostgreSQL and one Redis, all
real processes:

- no subscription is refreshed twice at once (the reference server holds every
  ``events/subscribe`` for a while, so two calls of one subscription that
  overlap arrive closer together than that) and no push stream is held twice
  (the server never sees two open streams of one subscription);
- every event reaches the host exactly once;
- a browser page served by either web process sees live updates;
- of the two beats one ticks, the other stands by and takes over when the
  first is killed (config/beat.py).
"""

from __future__ import annotations

import collections
import csv
import io
import os
import re
import shutil
import signal
import socket
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import httpx
import pytest
from django.conf import settings

from config import supervisor as sv
from subscriptions.models import Subscription
from switchboard.models import HeldStream, McpServer
from tests.live import (
    ARTIFACTS,
    _env,
    forget_beat_schedule,
    free_port,
    session_scheduling_aside,
)
from tests.subscriptions.support import HostReceiver, approve_events, wait_for

HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
LOGS = ARTIFACTS / "scale-out"

pytestmark = [
    pytest.mark.processes,
    pytest.mark.skipif(
        not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
        reason=(
            "PostgreSQL only: this topology spans machines, which one SQLite file "
            "cannot serve (docs/production.md); on one machine its eight processes "
            "would queue on SQLite's single writer lock, a test of that lock rather "
            "than of claims and leases"
        ),
    ),
]

# Each events/subscribe (subscribe and every refresh) is held this long by the
# reference server before it records and answers it.
SUBSCRIBE_HOLD = 0.3
WEBHOOK_EVENT = "build.finished"  # webhook only
PUSH_EVENT = "deploy.status"  # push and poll


def haproxy_config(*, port: int, webs: dict[str, int], stats_socket: Path) -> str:
    """Round-robin per request; a request carrying ``SWB_WEB=<name>`` goes to
    that web process (how the browser test pins a page). haproxy passes the
    websocket upgrade through and keeps the tunnel open (``timeout tunnel``)."""
    servers = "\n".join(
        f"    server {name} 127.0.0.1:{web_port} check inter 2s cookie {name}"
        for name, web_port in webs.items()
    )
    return f"""global
    stats socket {stats_socket} mode 600 level user
    maxconn 512

defaults
    mode http
    option forwardfor
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h

frontend console
    bind 127.0.0.1:{port}
    default_backend web

backend web
    balance roundrobin
    cookie SWB_WEB indirect nocache
    option httpchk GET /healthz
{servers}
"""


@dataclass
class ScaleStack:
    base_url: str  # the balancer
    webs: dict[str, int]  # web process name -> its own port
    stats_socket: Path
    supervisor: sv.Supervisor

    def child(self, name: str) -> sv.Child:
        return next(c for c in self.supervisor.children if c.name == name)

    def haproxy_stats(self) -> dict[str, dict[str, str]]:
        """Per web process: haproxy's counters (``scur`` open connections,
        websocket tunnels included; ``stot`` connections so far)."""
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(str(self.stats_socket))
            client.sendall(b"show stat\n")
            raw = b""
            while chunk := client.recv(65536):
                raw += chunk
        rows = csv.DictReader(io.StringIO(raw.decode().lstrip("# ")))
        return {r["svname"]: r for r in rows if r["pxname"] == "web" and r["svname"] in self.webs}

    def api(self, key: str) -> httpx.Client:
        """The host's API client through the balancer; no cookies, so each
        request goes to the next web process."""
        return httpx.Client(
            base_url=f"{self.base_url}/api/v1",
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
        )


@pytest.fixture(scope="module")
def scale(django_db_setup, django_db_blocker, refserver_process):
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    webs = {"web-1": free_port(), "web-2": free_port()}
    workdir = Path(tempfile.mkdtemp(prefix="swb-scale-"))
    stats_socket = workdir / "haproxy.sock"
    config = workdir / "haproxy.cfg"
    config.write_text(haproxy_config(port=port, webs=webs, stats_socket=stats_socket))
    with django_db_blocker.unblock():
        # Beat looks for due work every 2 s here (the session's 0.5 s sends
        # ~35 tasks a second, which two workers on a busy machine queue behind);
        # short grants are refreshed by countdowns, whatever the tick.
        env = _env({"PUBLIC_BASE_URL": base_url, "BEAT_TICK": "2", "BEAT_LOCK_TIMEOUT": "5"})
    for old_log in LOGS.glob("*.log"):  # the supervisor appends; the beat test reads them
        old_log.unlink()
    supervisor = sv.Supervisor(env=env, log_dir=LOGS)
    queue = os.environ["CELERY_QUEUE"]
    previous = settings.PUBLIC_BASE_URL
    with session_scheduling_aside():
        try:
            for name, web_port in webs.items():
                supervisor.start(name, sv.daphne_argv(web_port))
            for n in (1, 2):
                supervisor.start(
                    f"worker-{n}", sv.celery_worker_argv(queue=queue, hostname=f"worker-{n}")
                )
            supervisor.start("beat-1", sv.celery_beat_argv())
            # A second beat, started a moment later, stands by (docs/production.md);
            # the beat test kills the leader.
            time.sleep(1)
            supervisor.start("beat-2", sv.celery_beat_argv())
            for n in (1, 2):
                supervisor.start(f"session-worker-{n}", sv.session_worker_argv())
            stack = ScaleStack(
                base_url=base_url, webs=webs, stats_socket=stats_socket, supervisor=supervisor
            )
            for name, web_port in webs.items():
                sv.wait_for_http(
                    f"http://127.0.0.1:{web_port}/healthz",
                    process=stack.child(name).process,
                    timeout=90,
                )
            balancer = supervisor.start("haproxy", [HAPROXY, "-f", str(config), "-db"])
            # Both web processes pass haproxy's health check before any test.
            wait_for(
                lambda: (
                    balancer.process.poll() is None
                    and stats_socket.exists()
                    and all(r["status"] == "UP" for r in stack.haproxy_stats().values())
                ),
                timeout=30,
                message="haproxy up with both web processes",
            )
            settings.PUBLIC_BASE_URL = base_url  # links made in-process go through haproxy
            yield stack
        finally:
            settings.PUBLIC_BASE_URL = previous
            import sys

            t0 = time.monotonic()
            names = [child.name for child in supervisor.children]
            supervisor.stop_all()
            print(f"stopped {', '.join(names)} in {time.monotonic() - t0:.1f}s", file=sys.stderr)
            forget_beat_schedule()
            shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def host_receiver():
    receiver = HostReceiver()
    yield receiver
    receiver.close()


def _at(record: dict) -> float:
    return datetime.fromisoformat(record["at"].replace("Z", "+00:00")).timestamp()


def test_refreshes_streams_and_forwarding_happen_once_with_two_of_every_process(
    scale, transactional_db, tpersonas, refserver, host_receiver
):
    import sys

    print("start", time.monotonic(), file=sys.stderr)
    api = scale.api(tpersonas.acme_key)
    registered = api.post("/servers", json={"name": "Ref", "url": refserver.mcp_url})
    assert registered.status_code == 201, registered.text
    server_id = registered.json()["id"]
    approve_events(
        tpersonas.alice, McpServer.objects.get(pk=server_id), [WEBHOOK_EVENT, PUSH_EVENT]
    )
    endpoint = api.put("/host/endpoint", json={"url": host_receiver.url})
    assert endpoint.status_code == 200, endpoint.text
    host_receiver.secret = endpoint.json()["secret"]
    refserver.control(
        "POST", "behaviour", {"method": "events/subscribe", "delay_ms": int(SUBSCRIBE_HOLD * 1000)}
    )

    repos = [f"acme/app-{n}" for n in range(3)]
    environments = [f"env-{n}" for n in range(3)]
    subscriptions = {}
    for repo in repos:  # 3 s grants: refreshed every ~2 s
        answer = api.post(
            "/subscriptions",
            json={
                "user": "alice",
                "server": server_id,
                "event": WEBHOOK_EVENT,
                "arguments": {"repo": repo},
                "ttl_ms": 3000,
            },
        )
        assert answer.status_code == 201 and answer.json()["mode"] == "webhook", answer.text
        subscriptions[answer.json()["id"]] = repo
    for environment in environments:
        answer = api.post(
            "/subscriptions",
            json={
                "user": "alice",
                "server": server_id,
                "event": PUSH_EVENT,
                "arguments": {"environment": environment},
            },
        )
        assert answer.status_code == 201 and answer.json()["mode"] == "push", answer.text
        subscriptions[answer.json()["id"]] = environment
    wait_for(
        lambda: (
            Subscription.objects.filter(pk__in=subscriptions, status="active").count()
            == len(subscriptions)
        ),
        timeout=60,
        message="every subscription active",
    )
    push_ids = [s for s, arg in subscriptions.items() if arg in environments]
    wait_for(
        lambda: len(refserver.control("GET", "subscriptions")["streams"]) == len(environments),
        timeout=30,
        message="a stream open for every push subscription",
    )

    # Events for every subscription while refreshes run, sampling who holds
    # which stream as it goes.
    emitted: list[str] = []
    most_streams_per_subscription = 0
    holders: dict[str, set[str]] = collections.defaultdict(set)

    def subscribe_calls() -> dict[str, list[float]]:
        """Per subscription (its receiver URL): when the server answered each
        events/subscribe, i.e. the subscribe and every refresh."""
        calls: dict[str, list[float]] = collections.defaultdict(list)
        for record in refserver.control("GET", "received?kinds=subscribe")["subscribe"]:
            calls[record["delivery"]["url"]].append(_at(record))
        return calls

    rounds, deadline = 0, time.monotonic() + 90
    # At least three rounds, and until each webhook subscription was refreshed
    # three times (every ~2 s when the machine keeps up).
    while rounds < 3 or min(len(c) for c in subscribe_calls().values()) < 4:
        assert time.monotonic() < deadline, subscribe_calls()
        rounds += 1
        for repo in repos:
            emitted.append(
                refserver.control(
                    "POST", "emit", {"name": WEBHOOK_EVENT, "data": {"repo": repo, "ok": True}}
                )["eventId"]
            )
        for environment in environments:
            emitted.append(
                refserver.control(
                    "POST",
                    "emit",
                    {
                        "name": PUSH_EVENT,
                        "data": {"state": "rolling"},
                        "arguments": {"environment": environment},
                    },
                )["eventId"]
            )
        for _ in range(4):
            streams = refserver.control("GET", "subscriptions")["streams"]
            per_arguments = collections.Counter(
                (s["arguments"] or {}).get("environment") for s in streams
            )
            most_streams_per_subscription = max(
                most_streams_per_subscription, *per_arguments.values(), 0
            )
            for held in HeldStream.objects.filter(key__in=[f"push:{i}" for i in push_ids]):
                if held.holder:
                    holders[held.key].add(held.holder)
            time.sleep(0.5)

    wait_for(
        lambda: len(host_receiver.accepted("event.received")) >= len(emitted),
        timeout=60,
        message="every event forwarded",
    )
    time.sleep(3)  # a second copy, if any, would arrive by now (retries are sub-second)
    forwarded = collections.Counter(
        d["data"]["event"]["eventId"] for d in host_receiver.accepted("event.received")
    )
    assert set(forwarded) == set(emitted)
    assert [i for i, n in forwarded.items() if n > 1] == [], "forwarded twice"
    assert not host_receiver.rejected

    # Push: never two streams for one subscription, each held by one worker
    # all along (no reconnect, so no takeover), the lease row naming it.
    assert most_streams_per_subscription == 1
    assert all(len(h) == 1 for h in holders.values()) and len(holders) == len(push_ids), holders
    stream_calls = collections.Counter(
        (r.get("arguments") or {}).get("environment")
        for r in refserver.control("GET", "received?kinds=stream")["stream"]
    )
    assert stream_calls == {e: 1 for e in environments}, stream_calls

    # Webhook: several refreshes of each, never two of one at once. A call is
    # recorded after the server held it SUBSCRIBE_HOLD, so two calls of one
    # subscription recorded closer than that overlapped.
    calls = subscribe_calls()
    assert len(calls) == len(repos)
    for url, times in calls.items():
        times.sort()
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        assert len(times) >= 4, (url, times)  # subscribed, then refreshed again and again
        assert min(gaps) >= SUBSCRIBE_HOLD - 0.005, (url, gaps)
    # Both web processes served the API and the webhooks (round-robin).
    served = {name: int(row["stot"]) for name, row in scale.haproxy_stats().items()}
    assert all(n > 0 for n in served.values()), served


def _signed_in_page(browser, scale: ScaleStack, web: str, user, path: str):
    """A browser context whose every request haproxy sends to ``web``."""
    from playwright.sync_api import expect

    from switchboard.actors import Actor
    from switchboard.services.users import login_link_create

    context = browser.new_context()
    context.add_cookies([{"name": "SWB_WEB", "value": web, "url": scale.base_url}])
    page = context.new_page()
    page.set_default_timeout(20_000)
    url, _ = login_link_create(user=user, actor=Actor.system(), next_path=path)
    assert url.startswith(scale.base_url)
    page.goto(url)
    expect(page).to_have_url(re.compile(re.escape(path) + "$"))
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")
    return page


@pytest.mark.browser
def test_a_page_on_either_web_process_sees_every_live_update(
    scale, transactional_db, tpersonas, browser
):
    from playwright.sync_api import expect

    from tests.factories import in_thread
    from tests.subscriptions.support import make_event_server

    server = in_thread(make_event_server, tpersonas.acme)
    idle = {name: int(row["scur"]) for name, row in scale.haproxy_stats().items()}
    pages = {
        web: _signed_in_page(browser, scale, web, tpersonas.alice, "/subscriptions/")
        for web in scale.webs
    }
    # Each page's live socket is open through haproxy to its own web process.
    open_now = {name: int(row["scur"]) for name, row in scale.haproxy_stats().items()}
    assert all(open_now[web] > idle[web] for web in scale.webs), (idle, open_now)

    api = scale.api(tpersonas.acme_key)
    repos = ["acme/app", "acme/web", "acme/docs"]
    # Round-robin: the three creations are answered by both web processes, and
    # each announces its change to pages wherever they are connected.
    for repo in repos:
        answer = api.post(
            "/subscriptions",
            json={
                "user": "alice",
                "server": server.id,
                "event": WEBHOOK_EVENT,
                "arguments": {"repo": repo},
            },
        )
        assert answer.status_code == 201, answer.text
    for page in pages.values():
        results = page.locator("#sub-results")
        for repo in repos:
            expect(results).to_contain_text(repo)
    for page in pages.values():
        page.context.close()


def _log_lines(child: sv.Child, pattern: str) -> int:
    assert child.log_path is not None
    return len(re.findall(pattern, child.log_path.read_text(errors="replace")))


SENDS = r"Scheduler: Sending due task"


def test_two_beats_tick_one_at_a_time_and_the_standby_takes_over_a_killed_leader(scale):
    beats = [scale.child("beat-1"), scale.child("beat-2")]
    wait_for(
        lambda: (
            all(_log_lines(b, "beat: Starting") for b in beats)
            and any(_log_lines(b, "beat: Acquired lock") for b in beats)
        ),
        timeout=60,
        message="both beats up, one leading",
    )
    time.sleep(2)  # past the standby's first try for the lock
    leader, standby = beats if _log_lines(beats[0], "beat: Acquired lock") else beats[::-1]
    before = _log_lines(leader, SENDS), _log_lines(standby, SENDS)
    time.sleep(4)
    after = _log_lines(leader, SENDS), _log_lines(standby, SENDS)
    # The sweep alone is due every 0.5 s, so the leader sent; the standby none.
    assert after[0] - before[0] >= 4, (before, after)
    assert after[1] == before[1] == 0, (before, after)
    assert _log_lines(standby, "beat: Acquired lock") == 0

    killed_at = time.monotonic()
    scale.supervisor.stop(leader, sig=signal.SIGKILL)  # the lock is not released
    wait_for(
        lambda: _log_lines(standby, SENDS) > 0,
        timeout=settings.BEAT_LOCK_TIMEOUT + 15,
        message="the standby took over",
    )
    took = time.monotonic() - killed_at
    # Not before the killed leader's lock ran out (renewed at least once a loop
    # interval before the kill), and not long after.
    lock, loop = settings.BEAT_LOCK_TIMEOUT, settings.CELERY_BEAT_MAX_LOOP_INTERVAL
    assert lock - loop <= took <= lock + loop + 5, took
    assert _log_lines(standby, "beat: Acquired lock") == 1
    # It goes on ticking: the stack keeps one beat, the former standby.
    sent = _log_lines(standby, SENDS)
    time.sleep(2)
    assert _log_lines(standby, SENDS) > sent
