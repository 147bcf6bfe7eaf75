"""Load (docs/reliability.md row 12): webhook deliveries for ``--minutes`` at half the
receiver's peak throughput on this machine, with duplicates and bad
signatures, forwarded to a host endpoint, while 50 signed-in browser
websockets are open and the host sends conversation messages — bounded in
time and count, on loopback.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/switchboard REDIS_URL=redis://127.0.0.1:6379/0 \\
      .venv/bin/python bench/load.py                  # 10 minutes at half the peak
    .venv/bin/python bench/load.py --minutes 0.5      # the short version CI runs

What runs, all real: a throwaway PostgreSQL database (``<name>_load_<run>``,
a copy of a migrated template, see ``bench/stack.py``; dropped by the run),
Redis, the reference MCP server, and every process of the Procfile started by its own line (``web`` on
127.0.0.1, ``worker``, ``beat``, ``sessions``) on a Celery queue and a
channel prefix of the run's own. In this process: the MCP servers' side
(signed Standard Webhooks deliveries over raw keep-alive sockets), the
host's endpoint (an HTTP server that verifies each delivery's signature and
counts every ``event.received`` by eventId), the host's API client and the
browsers' websockets (``/ws/live/`` with each user's session cookie, signed
in by one-time login links as a browser is).

The data is made by the project's own services: a host and its key,
``--users`` end users each with one webhook subscription to the reference
server's ``build.finished`` (so every delivery updates a live page someone
watches) on their ``events`` grant for it, a ``conversation:read`` grant, the
host's endpoint.

Phases:

1. Peak: ``--peak-seconds`` of a closed loop (``--concurrency`` connections
   back to back, every delivery a new event) against the receiver while
   everything else runs; the rate of the run is half the accepted rate. The
   forwarding backlog this leaves is drained before the run starts.
2. The run, ``--minutes`` long: deliveries on an open loop at that rate
   (each delivery's latency counted from its scheduled time, so a stall is
   not hidden), 1 % of them a delivery sent again (same webhook-id and
   bytes; must be answered 200 and not forwarded again) and 1 % with a bad
   signature (must be answered 401 and never forwarded); ``--conversation-rate``
   conversation messages per second through ``POST /api/v1/conversations/…``
   (each fans out to the reference server); the websockets open throughout.
   Every ``--report-every`` seconds: p99 receiver ack, forwarding lag (p50,
   p99; from the delivery's send to the host endpoint receiving it), queue
   depth (outbox rows pending + the Celery queue's length), the RSS of each
   process (with its children: Celery's pool).
3. Drain: until every accepted event reached the endpoint (at most
   ``--drain`` s), then ``--settle`` s more for late doubles.

It fails (exit 1), saying why, when an accepted event is lost, an event
reaches the endpoint twice, a bad signature is accepted or forwarded, a
duplicate is forwarded, a websocket is closed by the server, forwarding lag
grows (the p99 of the last third of the run over ``--lag-factor`` × the
first third's + ``--lag-slack`` s), or a process's memory grows (a
least-squares line through its RSS over the last two thirds of the run,
times the run's length, over ``--memory-slack`` MB and 10 % of its size).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import gc
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(REPO), str(BENCH)]

from stack import (  # noqa: E402 - needs the path above
    Http,
    database_create,
    drop_database,
    free_port,
    load_average,
    pct,
    purge_queue,
    sign_in,
)
from standardwebhooks import Webhook, WebhookVerificationError  # noqa: E402
from webhook_load import Connection, Requests, Target, closed_loop  # noqa: E402
from webhook_receiver import bench_env, webhook_subscription  # noqa: E402

EVENT_ID = re.compile(rb'"eventId":"([^"]+)"')
SIGNATURE = re.compile(rb"webhook-signature: v1,([A-Za-z0-9+/=]+)")
CHECKED = ("web", "worker", "beat", "sessions")  # the processes whose memory must stay flat


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="length of the run")
    parser.add_argument("--peak-seconds", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=32, help="connections for the peak")
    parser.add_argument("--users", type=int, default=50, help="users, websockets, subscriptions")
    parser.add_argument("--conversation-rate", type=float, default=5.0, help="messages per second")
    parser.add_argument("--duplicates", type=float, default=0.01, help="share of deliveries")
    parser.add_argument("--bad-signatures", type=float, default=0.01, help="share of deliveries")
    parser.add_argument("--report-every", type=float, default=10.0, help="seconds")
    parser.add_argument(
        "--drain",
        type=float,
        help="seconds to wait for each backlog (after the peak, after the run); "
        "120, or 45 for a run shorter than a minute (CI)",
    )
    parser.add_argument(
        "--settle", type=float, help="seconds to wait for doubles; 5, or 2 under a minute"
    )
    parser.add_argument("--lag-factor", type=float, default=2.0)
    parser.add_argument("--lag-slack", type=float, default=1.0, help="seconds")
    parser.add_argument("--memory-slack", type=float, default=32.0, help="MB")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/switchboard"),
    )
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--keep-db", action="store_true")
    return parser.parse_args(argv)


def short_defaults(args: argparse.Namespace) -> argparse.Namespace:
    """A run shorter than a minute (the CI version) waits less for its
    backlogs: what it forwards in its 30 s drains in seconds, so a longer
    wait only delays the failure of a run that will not drain."""
    short = args.minutes < 1
    if args.drain is None:
        args.drain = 45.0 if short else 120.0
    if args.settle is None:
        args.settle = 2.0 if short else 5.0
    return args


# --- data ---------------------------------------------------------------------------------


@dataclass
class Fixture:
    key: str
    users: list[str]  # external ids
    targets: list[Target]  # one webhook subscription per user
    login_paths: list[str]
    endpoint_key: bytes


def setup_database(env: dict[str, str], users: int, refserver_url: str, endpoint_url: str):
    """A fresh database with what a host sets up, made by the project's services."""
    database_create(env)
    from django.db import connections

    from consent.services import Decision, consent_request_create, consent_request_decide
    from outbox.services import host_endpoint_set
    from switchboard.actors import Actor
    from switchboard.services.hosts import host_create
    from switchboard.services.servers import server_register
    from switchboard.services.users import login_link_create, user_upsert

    actor = Actor.system("bench")
    host, key = host_create(name="Load host", actor=actor)
    server = server_register(host=host, name="reference", actor=actor, url=refserver_url)
    if server.status != "active":
        raise SystemExit(f"the reference server did not sync: {server.last_error_detail}")
    external_ids, targets, login_paths = [], [], []
    for n in range(users):
        user, _ = user_upsert(host=host, external_id=f"load-user-{n}", actor=actor)
        # The subscription's events reach the host only on the user's events
        # consent (checked again when they are forwarded).
        request, _ = consent_request_create(
            host=host,
            user=user,
            server=server,
            scopes=["conversation:read", "events"],
            event_types=["build.finished"],
            actor=actor,
        )
        consent_request_decide(
            request=request,
            decisions={
                g.id: Decision(
                    allow=True, event_types=["build.finished"] if g.scope == "events" else []
                )
                for g in request.grants.all()
            },
            remember="forever",
            actor=actor,
        )
        targets.append(webhook_subscription(host, user, server, n, remote_id=f"sub_load_{n}"))
        url, _ = login_link_create(user=user, actor=actor)
        login_paths.append("/login/" + url.rsplit("/login/", 1)[1])
        external_ids.append(user.external_id)
    # Last, so the consent changes above stay in the log (no_endpoint), not in the run.
    _, endpoint_secret = host_endpoint_set(host=host, url=endpoint_url, actor=actor)
    connections.close_all()
    endpoint_key = base64.b64decode(endpoint_secret.removeprefix("whsec_"))
    return Fixture(key, external_ids, targets, login_paths, endpoint_key)


def queue_depth(queue: str) -> tuple[int, int]:
    """Outbox rows pending, and tasks waiting in the run's Celery queue."""
    import redis
    from django.conf import settings
    from django.db import connection

    from outbox.models import HostDelivery

    try:
        pending = HostDelivery.objects.filter(status="pending").count()
    finally:
        connection.close()
    return pending, redis.Redis.from_url(settings.REDIS_URL).llen(queue)


# --- the host's endpoint ------------------------------------------------------------------


@dataclass
class Endpoint:
    """The host endpoint: verifies each delivery and counts every eventId."""

    key: bytes
    arrivals: dict[str, list[float]] = field(default_factory=dict)  # eventId -> arrival times
    webhook_ids: Counter = field(default_factory=Counter)
    other_types: Counter = field(default_factory=Counter)
    bad_signatures: int = 0

    def verified(self, headers: dict[str, str], body: bytes) -> bool:
        try:
            Webhook(self.key).verify(body, headers)
        except WebhookVerificationError:
            return False
        return True

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                headers = {}
                for line in head.decode("latin-1").split("\r\n")[1:]:
                    name, sep, value = line.partition(":")
                    if sep:
                        headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", 0)))
                self.record(headers, body, time.perf_counter())
                writer.write(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def record(self, headers: dict[str, str], body: bytes, now: float) -> None:
        if not self.verified(headers, body):
            self.bad_signatures += 1
            return
        self.webhook_ids[headers["webhook-id"]] += 1
        message = json.loads(body)
        if message["type"] != "event.received":
            self.other_types[message["type"]] += 1
            return
        self.arrivals.setdefault(message["data"]["event"]["eventId"], []).append(now)


# --- the browsers -------------------------------------------------------------------------


@dataclass
class Browsers:
    messages: int = 0
    closed: list[str] = field(default_factory=list)
    sockets: list = field(default_factory=list)
    readers: list = field(default_factory=list)
    closing: bool = False

    async def open(self, port: int, cookies: list[str]) -> None:
        from websockets.asyncio.client import connect

        for cookie in cookies:
            ws = await connect(
                f"ws://127.0.0.1:{port}/ws/live/",
                origin=f"http://127.0.0.1:{port}",
                additional_headers={"Cookie": cookie},
                max_size=None,
            )
            self.sockets.append(ws)
            self.readers.append(asyncio.create_task(self.read(ws)))

    async def read(self, ws) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for _ in ws:
                self.messages += 1
        except ConnectionClosed:
            pass
        if not self.closing:
            self.closed.append(f"{ws.close_code} {ws.close_reason}".strip())

    async def close(self) -> None:
        self.closing = True
        for reader in self.readers:
            reader.cancel()
        for ws in self.sockets:
            await ws.close()


# --- the load -----------------------------------------------------------------------------


@dataclass
class Sent:
    """What the MCP servers' side sent and what it was answered."""

    send_at: dict[str, float] = field(default_factory=dict)  # accepted eventId -> sent
    acks: list[tuple[float, float]] = field(default_factory=list)  # (answered at, ms)
    statuses: Counter = field(default_factory=Counter)  # (kind, status) -> n
    bad_ids: set[str] = field(default_factory=set)
    accepted_raw: list[bytes] = field(default_factory=list)  # recent, for resending


def bad_signature(raw: bytes) -> bytes:
    """The same delivery signed with the wrong key (a valid-looking signature)."""
    forged = base64.b64encode(hashlib.sha256(raw).digest())
    return SIGNATURE.sub(b"webhook-signature: v1," + forged, raw, count=1)


async def deliveries(port: int, make: Requests, rate: float, until: float, sent: Sent, args):
    """An open loop at ``rate``: latency from each delivery's scheduled time."""
    pool: asyncio.Queue[Connection] = asyncio.Queue()
    for _ in range(args.concurrency):
        pool.put_nowait(await Connection.open(port))
    every_dup = round(1 / args.duplicates) if args.duplicates else 0
    every_bad = round(1 / args.bad_signatures) if args.bad_signatures else 0

    async def one(kind: str, raw: bytes, scheduled: float, event_id: str) -> None:
        conn = await pool.get()
        try:
            if kind == "new":
                sent.send_at[event_id] = time.perf_counter()
            status = await conn.send(raw)
        finally:
            pool.put_nowait(conn)
        now = time.perf_counter()
        sent.acks.append((now, (now - scheduled) * 1000))
        sent.statuses[kind, status] += 1
        if kind == "new":
            if status == 200:
                sent.accepted_raw.append(raw)
                del sent.accepted_raw[:-200]
            else:
                sent.send_at.pop(event_id, None)  # refused: not owed to the host

    tasks = set()
    started = time.perf_counter()
    n = 0
    while (scheduled := started + n / rate) < until:
        if (delay := scheduled - time.perf_counter()) > 0:
            await asyncio.sleep(delay)
        raw = make()
        kind = "new"
        if every_dup and n % every_dup == every_dup // 2 and sent.accepted_raw:
            kind, raw = "duplicate", sent.accepted_raw[0]
        elif every_bad and n % every_bad == 0:
            kind, raw = "bad", bad_signature(raw)
        event_id = EVENT_ID.search(raw).group(1).decode()
        if kind == "bad":
            sent.bad_ids.add(event_id)
        task = asyncio.create_task(one(kind, raw, scheduled, event_id))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        n += 1
    await asyncio.gather(*tasks)
    while not pool.empty():
        pool.get_nowait().close()


@dataclass
class Conversations:
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (answered at, ms)
    statuses: Counter = field(default_factory=Counter)


async def conversations(port: int, fixture: Fixture, rate: float, until: float, out) -> None:
    """The host's API client: conversation messages at ``rate``, round robin over the users."""
    pool: asyncio.Queue[Http] = asyncio.Queue()
    for _ in range(8):
        pool.put_nowait(await Http.open(port))

    async def one(n: int, scheduled: float) -> None:
        body = json.dumps(
            {
                "user": fixture.users[n % len(fixture.users)],
                "message_id": f"m{n}",
                "content": "What did we decide about the schema?",
            }
        ).encode()
        raw = (
            f"POST /api/v1/conversations/load-{n % len(fixture.users)}/messages HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{port}\r\nAuthorization: Bearer {fixture.key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        conn = await pool.get()
        try:
            answer = await conn.send(raw)
        finally:
            pool.put_nowait(conn)
        now = time.perf_counter()
        out.latencies.append((now, (now - scheduled) * 1000))
        out.statuses[answer.status] += 1

    tasks = set()
    started = time.perf_counter()
    n = 0
    while (scheduled := started + n / rate) < until:
        if (delay := scheduled - time.perf_counter()) > 0:
            await asyncio.sleep(delay)
        task = asyncio.create_task(one(n, scheduled))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        n += 1
    await asyncio.gather(*tasks)
    while not pool.empty():
        pool.get_nowait().close()


# --- memory -------------------------------------------------------------------------------


def rss_mb(pid: int, children: bool = True) -> float:
    """A process's RSS with its children's (Celery's pool), in MB."""
    import psutil

    try:
        process = psutil.Process(pid)
        total = process.memory_info().rss
        for child in process.children(recursive=True) if children else []:
            with contextlib.suppress(psutil.NoSuchProcess):
                total += child.memory_info().rss
    except psutil.NoSuchProcess:
        return float("nan")
    return total / 2**20


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (t, y), per unit of t."""
    if len(points) < 2:
        return 0.0
    mean_t = statistics.fmean(t for t, _ in points)
    mean_y = statistics.fmean(y for _, y in points)
    den = sum((t - mean_t) ** 2 for t, _ in points)
    return sum((t - mean_t) * (y - mean_y) for t, y in points) / den if den else 0.0


# --- the run ------------------------------------------------------------------------------


def run_env(args: argparse.Namespace, run_id: str, var_dir: str) -> dict[str, str]:
    env = bench_env(args, run_id)
    base, _, name = args.database_url.rpartition("/")
    env.update(
        {
            "DATABASE_URL": f"{base}/{name.split('?')[0]}_load_{run_id}",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            # The run's own var directory (the beat schedule) and secrets, so
            # runs side by side (a CI run beside a long one) share nothing.
            "SWITCHBOARD_VAR_DIR": var_dir,
            "SECRET_KEY": secrets.token_urlsafe(40),
            "FIELD_ENCRYPTION_KEY": base64.urlsafe_b64encode(os.urandom(32)).decode(),
            "BIND": "127.0.0.1",
            "LOG_LEVEL": "WARNING",
        }
    )
    return env


def run(args: argparse.Namespace) -> dict:
    from config import supervisor as sv

    run_id = uuid.uuid4().hex[:6]
    var_dir = tempfile.mkdtemp(prefix=f"load-{run_id}-")
    env = run_env(args, run_id, var_dir)
    os.environ.update(env)  # before anything can fail, so the cleanup can reach the database
    load_start = load_average()
    print(f"Preparing {env['DATABASE_URL'].rsplit('/', 1)[1]} … (load average {load_start})")
    began = time.perf_counter()
    ports = {"web": free_port(), "endpoint": free_port(), "refserver": free_port()}
    supervisor = sv.Supervisor(env=env, log_dir=REPO / "var" / "bench-logs" / f"load-{run_id}")
    try:
        ref = supervisor.start("refserver", sv.refserver_argv(ports["refserver"]))
        sv.wait_for_http(
            f"http://127.0.0.1:{ports['refserver']}/healthz", timeout=30, process=ref.process
        )
        fixture = setup_database(
            env,
            args.users,
            f"http://127.0.0.1:{ports['refserver']}/mcp",
            f"http://127.0.0.1:{ports['endpoint']}/switchboard",
        )
        children = {"refserver": ref}
        procfile_env = sv.procfile_env(env, port=ports["web"])
        for name, command in sv.procfile_entries().items():
            children[name] = supervisor.start(
                name, sv.procfile_argv(command), extra_env=procfile_env
            )
        sv.wait_for_http(
            f"http://127.0.0.1:{ports['web']}/healthz", timeout=60, process=children["web"].process
        )
        print(f"Database made and processes up in {time.perf_counter() - began:.0f} s")
        results = asyncio.run(measure(args, ports, children, fixture, env))
        if dead := supervisor.dead_children():
            results["dead"] = [f"{c.name} (exit {c.process.returncode})" for c in dead]
    finally:
        supervisor.stop_all()
        purge_queue(env)
        shutil.rmtree(var_dir, ignore_errors=True)
        if not args.keep_db:
            drop_database(env)
    results.update(load_start=load_start, logs=str(supervisor.log_dir))
    return results


async def measure(args, ports, children, fixture: Fixture, env) -> dict:
    endpoint = Endpoint(key=fixture.endpoint_key)
    server = await asyncio.start_server(endpoint.handle, "127.0.0.1", ports["endpoint"])
    web = ports["web"]
    browsers = Browsers()
    try:
        cookies = [await sign_in(web, path) for path in fixture.login_paths]
        await browsers.open(web, cookies)
        print(f"{len(browsers.sockets)} websockets open, signed in as {len(cookies)} users")

        # 1. The peak, everything else running; then the backlog drains.
        peak_make = Requests("", fixture.targets, web, f"{env['CELERY_QUEUE']}peak", True)
        warm = await closed_loop(web, peak_make, 2.0, args.concurrency)
        window = await closed_loop(web, peak_make, args.peak_seconds, args.concurrency)
        rate = window.rps / 2
        print(
            f"Peak: {window.rps:.0f} accepted/s over {window.seconds:.1f} s at "
            f"{args.concurrency} connections {dict(window.statuses)}; the run: {rate:.0f}/s"
        )
        # Every event of this phase is new: each one answered 200 is owed to the host.
        peak = {"rps": window.rps, "statuses": dict(window.statuses + warm.statuses)}
        peak["accepted"] = warm.ok + window.ok
        drained_in = await drain(lambda: len(endpoint.arrivals), None, env, args.drain)
        peak["forwarded"] = len(endpoint.arrivals)
        peak["drained_in_s"] = drained_in
        print(f"Peak backlog forwarded in {drained_in:.1f} s: {peak['forwarded']} events")

        # 2. The run.
        sent, convs = Sent(), Conversations()
        rss: dict[str, list[tuple[float, float]]] = {name: [] for name in children}
        rss["bench"] = []
        pids = {name: child.process.pid for name, child in children.items()}
        pids["bench"] = os.getpid()
        reports: list[dict] = []
        started = time.perf_counter()
        until = started + args.minutes * 60
        make = Requests("", fixture.targets, web, env["CELERY_QUEUE"], True)
        gc.collect()
        gc.freeze()
        load_tasks = [
            asyncio.create_task(deliveries(web, make, rate, until, sent, args)),
            asyncio.create_task(conversations(web, fixture, args.conversation_rate, until, convs)),
        ]
        last = started
        sample_every = min(2.0, args.report_every)
        next_report = started + args.report_every
        while not all(t.done() for t in load_tasks):
            await asyncio.sleep(sample_every)
            now = time.perf_counter()
            for name, pid in pids.items():
                rss[name].append((now - started, rss_mb(pid, children=name != "bench")))
            if now >= next_report or all(t.done() for t in load_tasks):
                reports.append(
                    await window_report(now, last, started, sent, convs, endpoint, rss, env)
                )
                last, next_report = now, now + args.report_every
        for task in load_tasks:
            task.result()
        run_seconds = time.perf_counter() - started

        # 3. Drain, then wait for late doubles.
        owed = set(sent.send_at)
        drained_in = await drain(
            lambda: len(owed & endpoint.arrivals.keys()), len(owed), env, args.drain
        )
        await asyncio.sleep(args.settle)
    finally:
        server.close()
        await browsers.close()
    return summarize(
        args=args,
        rate=rate,
        peak=peak,
        sent=sent,
        convs=convs,
        endpoint=endpoint,
        browsers=browsers,
        rss=rss,
        reports=reports,
        run_seconds=run_seconds,
        drained_in=drained_in,
        depth=await asyncio.to_thread(queue_depth, env["CELERY_QUEUE"]),
    )


async def drain(arrived, expected: int | None, env, timeout: float) -> float:
    """Until ``arrived()`` reaches ``expected`` (or, when None, the outbox and
    the queue are empty and nothing new arrives for a second); seconds taken."""
    started = time.perf_counter()
    seen, quiet_since = -1, started
    while time.perf_counter() - started < timeout:
        now = arrived()
        if expected is not None and now >= expected:
            break
        if expected is None:
            pending, queued = await asyncio.to_thread(queue_depth, env["CELERY_QUEUE"])
            if now != seen:
                seen, quiet_since = now, time.perf_counter()
            elif not pending and not queued and time.perf_counter() - quiet_since > 1.0:
                break
        await asyncio.sleep(0.25)
    return time.perf_counter() - started


async def window_report(now, last, started, sent, convs, endpoint, rss, env) -> dict:
    t0, t1 = last, now
    acks = [ms for at, ms in sent.acks if t0 < at <= t1]
    lags = [
        (times[0] - sent.send_at[eid]) * 1000
        for eid, times in endpoint.arrivals.items()
        if eid in sent.send_at and t0 < times[0] <= t1
    ]
    conv = [ms for at, ms in convs.latencies if t0 < at <= t1]
    pending, queued = await asyncio.to_thread(queue_depth, env["CELERY_QUEUE"])
    row = {
        "t": round(now - started, 1),
        "deliveries": len(acks),
        "ack_p99_ms": pct(acks, 99),
        "forwarded": len(lags),
        "lag_p50_ms": pct(lags, 50),
        "lag_p99_ms": pct(lags, 99),
        "outbox_pending": pending,
        "celery_queue": queued,
        "conversation_p99_ms": pct(conv, 99),
        "rss_mb": {name: round(points[-1][1]) for name, points in rss.items() if points},
        "load": load_average().split()[0],
    }
    memory = " ".join(f"{name} {mb}" for name, mb in row["rss_mb"].items())
    print(
        f"  t={row['t']:6.1f}s  ack p99 {row['ack_p99_ms']:6.1f} ms ({len(acks)})  "
        f"lag p50 {row['lag_p50_ms']:6.1f} p99 {row['lag_p99_ms']:7.1f} ms ({len(lags)})  "
        f"queue {pending}+{queued}  conv p99 {row['conversation_p99_ms']:6.0f} ms  "
        f"RSS MB: {memory}  load {row['load']}",
        flush=True,
    )
    return row


def summarize(
    *, args, rate, peak, sent, convs, endpoint, browsers, rss,
    reports, run_seconds, drained_in, depth,
) -> dict:  # fmt: skip
    owed = set(sent.send_at)
    arrived = endpoint.arrivals
    lost = sorted(owed - arrived.keys())
    doubled = sorted(eid for eid, times in arrived.items() if len(times) > 1)
    bad_forwarded = sorted(sent.bad_ids & arrived.keys())
    webhook_doubled = sum(1 for n in endpoint.webhook_ids.values() if n > 1)
    # Lag by thirds of the run, by the time each event was sent.
    span = max(run_seconds, 1e-9)
    first_sent = min(sent.send_at.values(), default=0.0)
    thirds: list[list[float]] = [[], [], []]
    for eid, at in sent.send_at.items():
        if eid in arrived:
            third = min(2, int((at - first_sent) / span * 3))
            thirds[third].append((arrived[eid][0] - at) * 1000)
    lag_first, lag_last = pct(thirds[0], 99), pct(thirds[2], 99)
    lag_limit = args.lag_factor * lag_first + args.lag_slack * 1000
    memory = {}
    for name, points in rss.items():
        later = [(t, mb) for t, mb in points if t >= span / 3]
        start_mb = statistics.median(mb for t, mb in points if t < span / 3) if points else 0.0
        growth = slope(later) * span
        bound = max(args.memory_slack, 0.10 * start_mb)
        memory[name] = {
            "start_mb": round(start_mb, 1),
            "end_mb": round(points[-1][1], 1) if points else None,
            "slope_mb_per_min": round(slope(later) * 60, 2),
            "growth_mb": round(growth, 1),
            "bound_mb": round(bound, 1),
            "checked": name in CHECKED,
            "flat": growth <= bound,
        }
    acks = [ms for _, ms in sent.acks]
    statuses = {f"{kind} {status}": n for (kind, status), n in sorted(sent.statuses.items())}
    failures = []
    if lost:
        failures.append(f"{len(lost)} accepted events never reached the endpoint ({lost[:3]})")
    if doubled:
        failures.append(f"{len(doubled)} events reached the endpoint twice ({doubled[:3]})")
    if webhook_doubled:
        failures.append(f"{webhook_doubled} webhook-ids reached the endpoint twice")
    if peak["forwarded"] != peak["accepted"]:
        failures.append(
            f"peak phase: {peak['accepted']} events accepted, {peak['forwarded']} forwarded"
        )
    if bad_forwarded:
        failures.append(f"{len(bad_forwarded)} events with a bad signature were forwarded")
    wrong = {k: n for k, n in statuses.items() if k not in ("new 200", "duplicate 200", "bad 401")}
    if wrong:
        failures.append(f"unexpected receiver answers: {wrong}")
    if endpoint.bad_signatures:
        failures.append(f"{endpoint.bad_signatures} deliveries to the endpoint failed verification")
    if set(convs.statuses) - {200}:
        failures.append(f"conversation answers other than 200: {dict(convs.statuses)}")
    if browsers.closed:
        failures.append(
            f"{len(browsers.closed)} websockets closed by the server: {browsers.closed[:3]}"
        )
    if not lag_last <= lag_limit:
        failures.append(
            f"forwarding lag grows: last third p99 {lag_last:.0f} ms > {args.lag_factor:g} × "
            f"first third {lag_first:.0f} ms + {args.lag_slack:g} s"
        )
    for name, m in memory.items():
        if m["checked"] and not m["flat"]:
            failures.append(
                f"{name}'s memory grows: {m['growth_mb']} MB over the run (bound {m['bound_mb']} MB)"
            )
    return {
        "minutes": args.minutes,
        "peak": peak,
        "rate": rate,
        "run_seconds": run_seconds,
        "deliveries": statuses,
        "accepted": len(owed),
        "forwarded": len(owed & arrived.keys()),
        "lost": len(lost),
        "doubled": len(doubled),
        "webhook_ids_doubled": webhook_doubled,
        "bad_forwarded": len(bad_forwarded),
        "other_deliveries": dict(endpoint.other_types),
        "ack_p50_ms": pct(acks, 50),
        "ack_p99_ms": pct(acks, 99),
        "lag_p50_ms": pct([ms for third in thirds for ms in third], 50),
        "lag_p99_ms": pct([ms for third in thirds for ms in third], 99),
        "lag_p99_by_third_ms": [pct(third, 99) for third in thirds],
        "lag_limit_ms": lag_limit,
        "drained_in_s": drained_in,
        "queue_at_end": depth,
        "conversations": dict(convs.statuses),
        "conversation_p50_ms": pct([ms for _, ms in convs.latencies], 50),
        "conversation_p99_ms": pct([ms for _, ms in convs.latencies], 99),
        "websockets": len(browsers.sockets),
        "websocket_messages": browsers.messages,
        "websockets_closed": len(browsers.closed),
        "memory": memory,
        "reports": reports,
        "load_end": load_average(),
        "finished": time.strftime("%Y-%m-%d %H:%M"),
        "failures": failures,
    }


def report(r: dict) -> None:
    print(f"\nLoad — {os.cpu_count()} CPUs; load average {r['load_start']} at the start, "
          f"{r['load_end']} at the end ({r['finished']}); logs in {r['logs']}")  # fmt: skip
    print(
        f"peak {r['peak']['rps']:.0f}/s → run at {r['rate']:.0f}/s for {r['run_seconds']:.0f} s "
        f"(peak phase: {r['peak']['accepted']} accepted, {r['peak']['forwarded']} forwarded, "
        f"backlog drained in {r['peak']['drained_in_s']:.1f} s)"
    )
    print(f"deliveries: {r['deliveries']}")
    print(
        f"accepted {r['accepted']}, forwarded {r['forwarded']}, lost {r['lost']}, "
        f"doubled {r['doubled']} (webhook-ids {r['webhook_ids_doubled']}), "
        f"bad signatures forwarded {r['bad_forwarded']}; other deliveries {r['other_deliveries']}"
    )
    thirds = " / ".join(f"{ms:.0f}" for ms in r["lag_p99_by_third_ms"])
    print(
        f"receiver ack p50 {r['ack_p50_ms']:.1f} ms p99 {r['ack_p99_ms']:.1f} ms; forwarding lag "
        f"p50 {r['lag_p50_ms']:.0f} ms p99 {r['lag_p99_ms']:.0f} ms; p99 by third {thirds} ms "
        f"(limit {r['lag_limit_ms']:.0f}); drained {r['drained_in_s']:.1f} s after the run; "
        f"queue at the end {r['queue_at_end'][0]}+{r['queue_at_end'][1]}"
    )
    print(
        f"conversations {r['conversations']} p50 {r['conversation_p50_ms']:.0f} ms "
        f"p99 {r['conversation_p99_ms']:.0f} ms; websockets {r['websockets']} open, "
        f"{r['websocket_messages']} messages, {r['websockets_closed']} closed by the server"
    )
    print("memory (RSS with children, MB): start → end, slope over the last two thirds")
    for name, m in r["memory"].items():
        verdict = ("flat" if m["flat"] else "GROWS") if m["checked"] else "(not checked)"
        print(
            f"  {name:<10} {m['start_mb']:7.1f} → {m['end_mb']:7.1f}  "
            f"{m['slope_mb_per_min']:+6.2f} MB/min, {m['growth_mb']:+6.1f} MB over the run "
            f"(bound {m['bound_mb']:.0f}) {verdict}"
        )
    if r.get("dead"):
        print(f"processes that died: {r['dead']}")
    print("RESULT: " + ("FAIL — " + "; ".join(r["failures"]) if r["failures"] else "ok"))


def main(argv: list[str] | None = None) -> int:
    args = short_defaults(parse_args(argv))

    # A SIGTERM ends the run like Ctrl-C does: through the finally blocks
    # that stop every process and drop the database.
    def interrupted(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    results = run(args)
    if results.get("dead"):
        results["failures"].append(f"processes died: {results['dead']}")
    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str))
    return 1 if results["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
