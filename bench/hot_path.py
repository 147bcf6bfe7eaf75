"""Benchmark: the host's hot path (bench/README.md, *Hot path*) — the calls a host makes on every
turn of its agent, under one daphne process and under the recommended
production setup, side by side in one run.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/switchboard REDIS_URL=redis://127.0.0.1:6379/0 \\
      .venv/bin/python bench/hot_path.py                          # ~3 minutes
    .venv/bin/python bench/hot_path.py --samples 200 --burst 300  # quicker
    .venv/bin/python bench/hot_path.py --py-spy var/hot-path      # + where the time goes

What runs, all real: PostgreSQL (a throwaway ``<name>_hot_path_<run>``
database next to DATABASE_URL's, a copy of a migrated template, dropped by
the run), Redis, a Celery worker on a queue of the run's own (the Procfile's
``worker``: it writes what a lifecycle event leaves after its answer), and the
project's ASGI application served twice at once: by one daphne process (what
``make run`` and the Procfile start) and by the README's production setup
(uvicorn, a worker process per CPU, uvloop and httptools when installed).
Both use ``bench/hot_path_settings.py``: the project's settings and URLs plus
the bare views of the webhook bench and a ``Server-Timing`` stamp of the time
spent in Django. The data is made by the project's own services: a host and
its API key, an end user, a staff admin, ``--hook-servers`` servers (stored
rows, as a host registers its own; no MCP server is contacted, since no hook
has a ``context_tool``) each declaring five hooks, all approved by the user.

Targets, on both servers:

- ``bare``: ``GET /bench/bare-sync``, a sync Django view that returns a
  constant, behind the same middleware (the API's views are sync too);
  ``bare-async`` is the async twin, for reference.
- ``user``: ``GET /api/v1/users/{id}`` with the API key.
- ``lifecycle-0``: ``POST /api/v1/sessions/{id}/lifecycle``, a tool use no
  hook applies to (the call a host makes most).
- ``lifecycle-5``: the same with a ``git commit`` that one hook of each of
  five servers matches: five injections per call, checked on every answer.
  Flood control is relaxed for the servers of this bench (no cooldown, a
  50 ms rate window) so a session can fire five hooks on every call; the
  records, ledger entries and live updates of each firing are all written.

Phases:

1. Sequential latency: one request at a time on a keep-alive connection per
   target, after ``--warmup`` untimed rounds; every round visits all targets
   of both servers in a fresh random order, so load noise from elsewhere on
   the machine hits every target alike. p50/p99 of the whole call as the
   client sees it, and of the time in Django (``Server-Timing``).
2. Throughput: ``--concurrency`` connections sending back to back for
   ``--duration`` seconds per target (each lifecycle connection its own
   session, as concurrent agents have), ``--rounds`` rounds, the order of the
   targets reversed every other round.
3. Burst: a signed-in end user's and a staff admin's ``/ws/live/`` sockets
   open on the server (signed in by one-time login links, as browsers are),
   then ``--burst`` lifecycle events with five injections each,
   ``--burst-concurrency`` at once. Every event's timeline entry must reach
   both sockets, every ledger entry the user's activity feed and the staff
   feed (the broadcast helper batches what waits for one page into one
   message; the ids inside are counted), and the servers' logs must show no
   broadcast error.

Goals (bench/README.md, *Hot path*): 1. ``user`` p50 ≤ 1.5× and p99 ≤ 2× ``bare`` under the same
server; 4. ``lifecycle-5`` p99 ≤ 8 ms, ``lifecycle-0`` p99 ≤ 4 ms, the whole
call over HTTP; 6. the burst: 0 broadcast errors, every update delivered.
Goals 2 and 3 are measured by ``conversation_fanout.py``, 5 by
``webhook_receiver.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(REPO), str(BENCH)]

from stack import (  # noqa: E402 - needs the path above
    Answer,
    Http,
    database_create,
    drop_database,
    free_port,
    pct,
    purge_queue,
    sign_in,
)
from stack import load_average as load  # noqa: E402
from webhook_receiver import bench_env, recommended_argv  # noqa: E402

USER = "bench-user"
TARGETS = ("bare", "bare-async", "user", "lifecycle-0", "lifecycle-5")
SERVERS = ("daphne", "recommended")
INJECTIONS = {"lifecycle-0": 0, "lifecycle-5": 5}
GOAL_1 = {"p50": 1.5, "p99": 2.0}  # × the bare view
GOAL_4 = {"lifecycle-5": 8.0, "lifecycle-0": 4.0}  # p99, ms
PY_SPY_RATE = 250  # samples per second and thread
# What the broadcast helper logs when a live update is lost or fails, and
# what Redis raised before it had one sender per process.
BROADCAST_ERRORS = re.compile(
    r"broadcast to \S+ failed|backlog full|MaxConnectionsError|Too many connections|ChannelFull"
)
TIMELINE_ID = re.compile(r'id="lce-(lce_\w+)"')
ACTIVITY_ID = re.compile(r'id="entry-(\d+)"')
TOPICS = re.compile(r'data-live-topics="([^"]*)"')


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=500, help="sequential calls per target")
    parser.add_argument("--warmup", type=int, default=40, help="untimed sequential rounds")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--duration", type=float, default=2.0, help="seconds per throughput run")
    parser.add_argument("--rounds", type=int, default=2, help="throughput rounds")
    parser.add_argument("--burst", type=int, default=1000, help="lifecycle events in the burst")
    parser.add_argument("--burst-concurrency", type=int, default=16)
    parser.add_argument("--burst-wait", type=float, default=120, help="seconds to wait for updates")
    parser.add_argument("--hook-servers", type=int, default=5)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2, help="uvicorn workers")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/switchboard"),
    )
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    parser.add_argument("--py-spy", metavar="DIR", help="also profile each server, per target")
    parser.add_argument("--py-spy-seconds", type=float, default=8.0)
    parser.add_argument(
        "--wait-quiet",
        type=float,
        metavar="LOAD",
        help="first wait (up to 10 minutes) for the 1-minute load average to fall below LOAD",
    )
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--keep-db", action="store_true")
    return parser.parse_args()


# --- data, on a throwaway database ------------------------------------------------------


def hook_declarations(n: int) -> list[dict]:
    """Five hooks per server; one (the first) matches ``lifecycle-5``'s event,
    none matches ``lifecycle-0``'s, the rest make the compiled set realistic."""
    return [
        {
            "event": "post_tool_use",
            "matcher": {"tool_name": "Bash", "input_contains": "git commit"},
            "context": f"Server {n}: you committed in {{project_name}}; note what changed and why.",
            "priority": "suggestion",
        },
        {
            "event": "pre_tool_use",
            "matcher": {"tool_name": "Bash", "input_contains": "git push"},
            "context": "Run the tests before pushing.",
            "priority": "important",
        },
        {"event": "post_tool_use", "matcher": {"tool_name": "Edit"}, "context": "Edited."},
        {"event": "post_tool_use", "matcher": {"tool_name": f"mcp__srv{n}__*"}, "context": "Ok."},
        {
            "event": "session_start",
            "context": "Working on {project_name}.",
            "priority": "important",
        },
    ]


@dataclass
class Fixture:
    key: str
    host_id: str
    user_id: str
    server_ids: list[str]
    login_paths: dict[str, str]  # "user"/"staff" -> /login/<one-time token>


def setup_database(env: dict[str, str], hook_servers: int) -> Fixture:
    """A fresh database, migrated, with what a host sets up, made by the
    project's own services (what ``create_host`` and the API call)."""
    database_create(env)
    from django.db import connections

    from consent.services import grant_approve, grant_request
    from switchboard.actors import Actor
    from switchboard.mcp import parse_declarations
    from switchboard.models import McpServer
    from switchboard.services.hosts import host_create
    from switchboard.services.server_discovery import ServerSnapshot
    from switchboard.services.server_sync import server_apply_snapshot
    from switchboard.services.users import login_link_create, staff_create, user_upsert

    actor = Actor.system("bench")
    host, key = host_create(name="Bench host", actor=actor)
    user, _ = user_upsert(host=host, external_id=USER, actor=actor, display_name="Bench User")
    staff = staff_create(host=host, email="admin@bench.test", role="admin", actor=actor)
    server_ids = []
    for n in range(hook_servers):
        server = McpServer.objects.create(
            host=host,
            name=f"hooks-{n}",
            status="host_managed",
            trust="trusted" if n == 0 else "untrusted",
        )
        raws = hook_declarations(n)
        snapshot = ServerSnapshot(
            capabilities={"hooks": {"declarations": raws}},
            sources={"hooks": "toplevel"},
            declarations=parse_declarations(server_id=server.id, raw_list=raws),
        )
        server_apply_snapshot(server=server, snapshot=snapshot, actor=actor)
        grant = grant_request(user=user, server=server, scope="hooks", actor=actor)
        hook_ids = list(server.hook_declarations.values_list("hook_id", flat=True))
        grant_approve(grant=grant, actor=actor, hook_ids=hook_ids)
        server_ids.append(server.id)
    login_paths = {}
    for label, who in (("user", user), ("staff", staff)):
        url, _ = login_link_create(user=who, actor=actor)
        login_paths[label] = "/login/" + url.rsplit("/login/", 1)[1]
    fixture = Fixture(key, host.id, user.id, server_ids, login_paths)
    connections.close_all()
    return fixture


def audit_watermark() -> int:
    """The newest ledger entry's id (ids only grow): what a burst adds is above it."""
    from django.db import connection
    from django.db.models import Max

    from switchboard.models import AuditEntry

    try:
        return AuditEntry.objects.aggregate(top=Max("id"))["top"] or 0
    finally:
        connection.close()


def records_pending() -> int:
    """Lifecycle events whose records (firings, ledger, timeline entry) the
    worker has yet to write."""
    from django.db import connection

    from hooks.models import LifecycleEvent

    try:
        return LifecycleEvent.objects.filter(pending__isnull=False).count()
    finally:
        connection.close()


def audit_since(host_id: str, after: int) -> list[tuple[int, str]]:
    from django.db import connection

    from switchboard.models import AuditEntry

    try:
        return list(
            AuditEntry.objects.filter(host_id=host_id, id__gt=after).values_list("id", "user_id")
        )
    finally:
        connection.close()


class Calls:
    """The bytes of each target's request for one server, and the check of its answer."""

    def __init__(self, port: int, fixture: Fixture):
        self.port, self.fixture = port, fixture
        self.auth = f"Authorization: Bearer {fixture.key}\r\n"

    def _request(self, method: str, path: str, extra: str = "", body: bytes = b"") -> bytes:
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n{extra}"
        if body or method == "POST":
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        return (head + "\r\n").encode() + body

    def raw(self, target: str, session: str = "") -> bytes:
        if target == "bare":
            return self._request("GET", "/bench/bare-sync")
        if target == "bare-async":
            return self._request("GET", "/bench/bare")
        if target == "user":
            return self._request("GET", f"/api/v1/users/{USER}", self.auth)
        commit = target == "lifecycle-5"
        event = {
            "user": USER,
            "event": "post_tool_use",
            "servers": self.fixture.server_ids,
            "tool_name": "Bash" if commit else "Read",
            "tool_input": {"command": "git commit -m 'wip'"}
            if commit
            else {"file_path": "/work/project/README.md"},
            "tool_output": {"content": [{"type": "text", "text": "[main 1a2b3c4] wip"}]},
            "project_name": "bench",
        }
        body = json.dumps(event, separators=(",", ":")).encode()
        return self._request("POST", f"/api/v1/sessions/{session}/lifecycle", self.auth, body)

    @staticmethod
    def check(target: str, answer: Answer) -> str | None:
        """What is wrong with the answer, if anything (a wrong answer is no figure)."""
        if answer.status != 200:
            return f"HTTP {answer.status}: {answer.body[:200]!r}"
        if target in INJECTIONS:
            got = len(json.loads(answer.body)["injections"])
            if got != INJECTIONS[target]:
                return f"{got} injections, expected {INJECTIONS[target]}"
        return None


def server_ms(answer: Answer) -> float | None:
    timing = answer.headers.get("server-timing", "")
    _, sep, value = timing.partition("dur=")
    return float(value) if sep else None


# --- figures ------------------------------------------------------------------------------


@dataclass
class Series:
    latencies: list[float] = field(default_factory=list)  # ms, as the client saw them
    in_django: list[float] = field(default_factory=list)  # ms, Server-Timing
    problems: list[str] = field(default_factory=list)
    requests: int = 0
    seconds: float = 0.0

    def summary(self) -> dict:
        return {
            "n": len(self.latencies),
            "p50": pct(self.latencies, 50),
            "p90": pct(self.latencies, 90),
            "p99": pct(self.latencies, 99),
            "max": max(self.latencies, default=float("nan")),
            "django_p50": pct(self.in_django, 50),
            "django_p99": pct(self.in_django, 99),
            "problems": len(self.problems),
            "first_problem": self.problems[0] if self.problems else None,
        }


@contextlib.contextmanager
def collector_paused():
    """No garbage collection in the client while it times (a pause of the
    client would count as server latency)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def timed(conn: Http, raw: bytes, target: str, series: Series, keep: bool) -> Answer:
    started = time.perf_counter()
    answer = await conn.send(raw)
    elapsed = (time.perf_counter() - started) * 1000
    if keep:
        series.latencies.append(elapsed)
        if (ms := server_ms(answer)) is not None:
            series.in_django.append(ms)
        if (problem := Calls.check(target, answer)) is not None:
            series.problems.append(problem)
    return answer


async def sequential(ports, calls, samples: int, warmup: int) -> dict[tuple[str, str], Series]:
    keys = [(server, target) for server in SERVERS for target in TARGETS]
    conns = {key: await Http.open(ports[key[0]]) for key in keys}
    series = {key: Series() for key in keys}
    rng = random.Random(14)
    try:
        with collector_paused():
            for round_no in range(warmup + samples):
                rng.shuffle(keys)
                for server, target in keys:
                    raw = calls[server].raw(target, session=f"seq-{server}-{target}")
                    # Warm-up (caches, pools, the session's claim) is not
                    # timed, but its first answer must already be right.
                    answer = await timed(
                        conns[server, target], raw, target, series[server, target],
                        keep=round_no >= warmup,
                    )  # fmt: skip
                    if round_no == 0 and (problem := Calls.check(target, answer)):
                        raise SystemExit(f"{server} {target}: {problem}")
    finally:
        for conn in conns.values():
            conn.close()
    return series


async def closed_loop(
    port: int, calls: Calls, target: str, tag: str, concurrency: int, duration: float
) -> Series:
    conns = [await Http.open(port) for _ in range(concurrency)]
    raws = [calls.raw(target, session=f"tput-{tag}-{target}-{i}") for i in range(concurrency)]
    for conn, raw in zip(conns, raws, strict=True):  # each session's claim, untimed
        await conn.send(raw)
    series = Series()

    async def drive(conn: Http, raw: bytes, deadline: float) -> None:
        while True:  # at least one call each, however slow the machine
            await timed(conn, raw, target, series, True)
            if time.perf_counter() >= deadline:
                return

    with collector_paused():
        started = time.perf_counter()
        deadline = started + duration
        await asyncio.gather(*(drive(c, r, deadline) for c, r in zip(conns, raws, strict=True)))
        series.seconds = time.perf_counter() - started
    series.requests = len(series.latencies)
    for conn in conns:
        conn.close()
    return series


async def throughput(ports, calls, args) -> dict[tuple[str, str], list[Series]]:
    keys = [(server, target) for target in TARGETS for server in SERVERS]
    runs: dict[tuple[str, str], list[Series]] = {key: [] for key in keys}
    for round_no in range(args.rounds):
        for server, target in keys if round_no % 2 == 0 else reversed(keys):
            run = await closed_loop(
                ports[server],
                calls[server],
                target,
                f"{server}{round_no}",
                args.concurrency,
                args.duration,
            )
            runs[server, target].append(run)
            print(
                f"  round {round_no + 1} {server:>11} {target:<12}"
                f"{run.requests / run.seconds:8.0f} req/s  p50 {pct(run.latencies, 50):6.1f} ms"
                f"  p99 {pct(run.latencies, 99):6.1f} ms",
                flush=True,
            )
    return runs


# --- the burst and its live updates ------------------------------------------------------


class LiveSocket:
    """A signed-in ``/ws/live/`` socket: the ids of what reached it."""

    def __init__(self) -> None:
        self.timeline: set[str] = set()
        self.activity: set[int] = set()
        self.topics: list[str] = []
        self.messages = 0
        self.last_new = 0.0

    async def read(self, ws) -> None:
        async for message in ws:
            text = message if isinstance(message, str) else message.decode()
            self.messages += 1
            before = len(self.timeline) + len(self.activity)
            self.timeline.update(TIMELINE_ID.findall(text))
            self.activity.update(int(n) for n in ACTIVITY_ID.findall(text))
            self.topics.extend(TOPICS.findall(text))
            if len(self.timeline) + len(self.activity) > before:
                self.last_new = time.perf_counter()


async def drained(timeout: float) -> int:
    """Until the worker has written every pending record (what earlier
    phases left), so a burst is measured alone; what is still pending."""
    deadline = time.perf_counter() + timeout
    while (left := await asyncio.to_thread(records_pending)) and time.perf_counter() < deadline:
        await asyncio.sleep(0.25)
    return left


async def burst(port: int, server: str, calls: Calls, fixture: Fixture, cookies, args, logs):
    from websockets.asyncio.client import connect

    await drained(args.burst_wait)

    sockets = {"user": LiveSocket(), "staff": LiveSocket()}
    opened = []
    readers = []
    for label, live in sockets.items():
        ws = await connect(
            f"ws://127.0.0.1:{port}/ws/live/",
            origin=f"http://127.0.0.1:{port}",
            additional_headers={"Cookie": cookies[label]},
            max_size=None,
        )
        opened.append(ws)
        readers.append(asyncio.create_task(live.read(ws)))
    # Broadcasts leave from the servers (the answers' own updates) and the
    # worker (what it writes after the answers): all their logs count.
    offsets = {log: log.stat().st_size for log in logs}
    watermark = await asyncio.to_thread(audit_watermark)
    events: list[str] = []
    problems: list[str] = []
    counter = iter(range(args.burst))
    conns = [await Http.open(port) for _ in range(args.burst_concurrency)]

    async def drive(conn: Http, session: str) -> None:
        raw = calls.raw("lifecycle-5", session=session)
        for _ in counter:
            answer = await conn.send(raw)
            if (problem := Calls.check("lifecycle-5", answer)) is not None:
                problems.append(problem)
            elif answer.status == 200:
                events.append(json.loads(answer.body)["event_id"])

    started = time.perf_counter()
    await asyncio.gather(*(drive(conn, f"burst-{server}-{i}") for i, conn in enumerate(conns)))
    sent = time.perf_counter()
    for conn in conns:
        conn.close()

    # Wait for everything the burst wrote to reach the sockets: the timeline
    # entries named by the answers, and the ledger entries above the
    # watermark (read again while they keep coming, in case any are written
    # after the answer).
    expected = set(events)
    deadline = sent + args.burst_wait
    ledger: list[tuple[int, str]] = []
    while time.perf_counter() < deadline:
        ledger = await asyncio.to_thread(audit_since, fixture.host_id, watermark)
        user_ledger = {n for n, user_id in ledger if user_id == fixture.user_id}
        staff_ledger = {n for n, _ in ledger}
        if (
            expected <= sockets["user"].timeline
            and expected <= sockets["staff"].timeline
            and user_ledger <= sockets["user"].activity
            and staff_ledger <= sockets["staff"].activity
            and time.perf_counter() - max(sockets["user"].last_new, sent) > 1.0
        ):
            break
        await asyncio.sleep(0.25)
    for ws in opened:
        await ws.close()
    for reader in readers:
        reader.cancel()
    user_ledger = {n for n, user_id in ledger if user_id == fixture.user_id}
    staff_ledger = {n for n, _ in ledger}
    logged = ""
    for log, offset in offsets.items():
        with log.open("rb") as handle:
            handle.seek(offset)
            logged += handle.read().decode(errors="replace")
    left = await asyncio.to_thread(records_pending)
    last = max(live.last_new for live in sockets.values())
    return {
        "events": len(events),
        "problems": len(problems),
        "first_problem": problems[0] if problems else None,
        "seconds": sent - started,
        "timeline_user": len(expected & sockets["user"].timeline),
        "timeline_staff": len(expected & sockets["staff"].timeline),
        "ledger_user": len(user_ledger),
        "ledger_user_seen": len(user_ledger & sockets["user"].activity),
        "ledger_staff": len(staff_ledger),
        "ledger_staff_seen": len(staff_ledger & sockets["staff"].activity),
        "messages_user": sockets["user"].messages,
        "messages_staff": sockets["staff"].messages,
        "broadcast_errors": len(BROADCAST_ERRORS.findall(logged)),
        "tracebacks": logged.count("Traceback"),
        "last_update_after_s": max(0.0, last - sent) if last else None,
        "records_pending": left,
    }


# --- profiles (py-spy) ----------------------------------------------------------------------


def py_spy_record(pid: int, seconds: float, out: Path, rate: int) -> subprocess.Popen:
    """Sample a server (and its worker processes) while one target runs.
    ``--idle`` keeps threads waiting on PostgreSQL or Redis in the samples:
    for latency, waiting is where time goes too. ``--nonblocking``: the
    server is never paused to be read."""
    py_spy = Path(sys.executable).with_name("py-spy")
    argv = [
        str(py_spy), "record", "--pid", str(pid), "--duration", str(int(seconds)),
        "--rate", str(rate), "--format", "raw", "--output", str(out), "--idle", "--threads",
        "--subprocesses", "--nonblocking", "--full-filenames",
    ]  # fmt: skip
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)


async def profile(ports, pids, calls, args) -> None:
    from hot_path_stacks import summarize

    out = Path(args.py_spy)
    out.mkdir(parents=True, exist_ok=True)
    for server in SERVERS:
        for target in ("bare", "user", "lifecycle-0", "lifecycle-5"):
            path = out / f"{server}-{target}.txt"
            spy = py_spy_record(pids[server], args.py_spy_seconds, path, PY_SPY_RATE)
            try:
                conn = await Http.open(ports[server])
                series = Series()
                await asyncio.sleep(0.5)  # py-spy attaches
                deadline = time.perf_counter() + args.py_spy_seconds - 1
                raw = calls[server].raw(target, session=f"spy-{server}-{target}")
                while time.perf_counter() < deadline:
                    await timed(conn, raw, target, series, True)
                conn.close()
                await asyncio.to_thread(spy.wait, 30)
            finally:
                if spy.poll() is None:  # interrupted: py-spy goes with us
                    spy.kill()
                    spy.wait()
            print(f"\n{server} {target}: {len(series.latencies)} calls, p50 "
                  f"{pct(series.latencies, 50):.2f} ms; {path}")  # fmt: skip
            if path.exists():
                print(summarize(path.read_text(), calls=len(series.latencies), rate=PY_SPY_RATE))


# --- the run ------------------------------------------------------------------------------


def goals(seq, bursts) -> list[dict]:
    out = []
    for server in SERVERS:
        bare, user = seq[server, "bare"].summary(), seq[server, "user"].summary()
        ratio50, ratio99 = user["p50"] / bare["p50"], user["p99"] / bare["p99"]
        out.append(
            {
                "goal": 1,
                "server": server,
                "met": ratio50 <= GOAL_1["p50"] and ratio99 <= GOAL_1["p99"],
                "text": f"GET /users/{{id}} p50 {user['p50']:.2f} ms = {ratio50:.2f}× bare "
                f"{bare['p50']:.2f} (≤ {GOAL_1['p50']}×), p99 {user['p99']:.2f} ms = "
                f"{ratio99:.2f}× bare {bare['p99']:.2f} (≤ {GOAL_1['p99']}×)",
            }
        )
        for target, limit in GOAL_4.items():
            row = seq[server, target].summary()
            out.append(
                {
                    "goal": 4,
                    "server": server,
                    "met": row["p99"] <= limit and not row["problems"],
                    "text": f"{target}: p99 {row['p99']:.2f} ms over HTTP (≤ {limit:g}); "
                    f"in Django p99 {row['django_p99']:.2f} ms",
                }
            )
        if server in bursts:
            b = bursts[server]
            complete = (
                b["timeline_user"] == b["timeline_staff"] == b["events"] == b["requested"]
                and b["ledger_user_seen"] == b["ledger_user"]
                and b["ledger_staff_seen"] == b["ledger_staff"]
            )
            out.append(
                {
                    "goal": 6,
                    "server": server,
                    "met": complete and b["broadcast_errors"] == 0 and not b["problems"],
                    "text": f"burst of {b['events']}: timeline {b['timeline_user']}/{b['events']} "
                    f"(user), {b['timeline_staff']}/{b['events']} (staff); ledger "
                    f"{b['ledger_user_seen']}/{b['ledger_user']} (user), "
                    f"{b['ledger_staff_seen']}/{b['ledger_staff']} (staff); "
                    f"{b['broadcast_errors']} broadcast errors logged",
                }
            )
    return out


def report(results: dict) -> None:
    setup = results["setup"]
    print(
        f"\nHot path — {setup['cpus']} CPUs, Python {setup['python']}; daphne (1 process) vs "
        f"{setup['recommended']}\nload average {results['load_start']} at the start, "
        f"{results['load_end']} at the end ({results['finished']})"
    )
    print(
        f"\nSequential, one call at a time ({results['samples']} per target), ms; "
        "'django' = Server-Timing"
    )
    print(
        f"  {'server':<12}{'target':<13}{'p50':>7}{'p90':>7}{'p99':>7}{'max':>8}"
        f"{'django p50':>12}{'django p99':>12}{'req/s@' + str(results['concurrency']):>11}"
        f"{'p50':>7}{'p99':>7}"
    )
    for server in SERVERS:
        for target in TARGETS:
            s = results["sequential"][f"{server}/{target}"]
            t = results["throughput"][f"{server}/{target}"]
            print(
                f"  {server:<12}{target:<13}{s['p50']:7.2f}{s['p90']:7.2f}{s['p99']:7.2f}"
                f"{s['max']:8.1f}{s['django_p50']:12.2f}{s['django_p99']:12.2f}"
                f"{t['rps']:11.0f}{t['p50']:7.1f}{t['p99']:7.1f}"
                + (f"  {s['problems']} wrong: {s['first_problem']}" if s["problems"] else "")
            )
    if results["burst"]:
        print(f"\nBurst: {results['burst_size']} lifecycle events with 5 injections each")
        for server, b in results["burst"].items():
            after = b["last_update_after_s"]
            print(
                f"  {server:<12} {b['events']} events in {b['seconds']:.1f} s; "
                f"{b['messages_user']} + {b['messages_staff']} socket messages; last update "
                f"{'—' if after is None else f'{after:.2f} s'} after the last answer; "
                f"{b['tracebacks']} tracebacks logged; {b['records_pending']} events' records "
                "still unwritten at the end"
            )
    print("\nGoals")
    for goal in results["goals"]:
        print(
            f"  {goal['goal']} {goal['server']:<12} {'met' if goal['met'] else 'MISSED':<7}"
            f"{goal['text']}"
        )


def wait_quiet(below: float, timeout: float = 600) -> None:
    """On a shared 2-CPU machine a figure taken while another test run
    works means little: wait for the machine to settle first."""
    deadline = time.monotonic() + timeout
    while (now := float(load().split()[0])) >= below and time.monotonic() < deadline:
        print(f"  load average {now:.2f} ≥ {below:g}: waiting …", flush=True)
        time.sleep(15)


def run(args: argparse.Namespace) -> dict:
    from config import supervisor as sv

    run_id = uuid.uuid4().hex[:6]
    env = bench_env(args, run_id)
    base, _, name = args.database_url.rpartition("/")
    env.update(
        {
            # A database of this run's own, so no other run (of this bench
            # or another) started beside it can drop it.
            "DATABASE_URL": f"{base}/{name.split('?')[0]}_hot_path_{run_id}",
            "DJANGO_SETTINGS_MODULE": "hot_path_settings",
            # Five injections on every call of one session: no cooldown, and
            # the session's rate window short enough that its history stays
            # as small as a real session's (the row is rewritten per firing).
            "HOOK_COOLDOWN": "0",
            "HOOK_SESSION_RATE_LIMIT": "1000000",
            "HOOK_SESSION_RATE_WINDOW": "0.05",
        }
    )
    if args.wait_quiet:
        wait_quiet(args.wait_quiet)
    load_start = load()
    print(f"Preparing {env['DATABASE_URL'].rsplit('/', 1)[1]} … (load average {load_start})")
    os.environ.update(env)  # before anything can fail, so the cleanup can reach the database
    ports = {server: free_port() for server in SERVERS}
    supervisor = sv.Supervisor(env=env, log_dir=REPO / "var" / "bench-logs")
    recommended, label = recommended_argv(ports["recommended"], args.workers)
    try:
        fixture = setup_database(env, args.hook_servers)
        children = {
            "daphne": supervisor.start("hot-path-daphne", sv.daphne_argv(ports["daphne"])),
            "recommended": supervisor.start("hot-path-recommended", recommended),
            # What production runs beside the web process (the Procfile's
            # worker): it writes a lifecycle event's records after the answer
            # and sends their live updates; on this machine it shares the CPUs.
            "worker": supervisor.start(
                "hot-path-worker",
                sv.celery_worker_argv(
                    concurrency=os.cpu_count() or 2,
                    queue=env["CELERY_QUEUE"],
                    hostname=f"hot-path-{run_id}",
                ),
            ),
        }
        for server, port in ports.items():
            sv.wait_for_http(
                f"http://127.0.0.1:{port}/healthz", timeout=60, process=children[server].process
            )
        results = asyncio.run(measure(args, ports, children, fixture))
    finally:
        supervisor.stop_all()
        purge_queue(env)
        if not args.keep_db:
            drop_database(env)
    results.update(
        load_start=load_start,
        setup={"recommended": label, "cpus": os.cpu_count(), "python": sys.version.split()[0]},
    )
    return results


async def measure(args, ports, children, fixture: Fixture) -> dict:
    calls = {server: Calls(port, fixture) for server, port in ports.items()}
    print(f"Sequential: {args.warmup} rounds of warm-up, {args.samples} timed …", flush=True)
    seq = await sequential(ports, calls, args.samples, args.warmup)
    print(f"Throughput: {args.concurrency} connections, {args.duration:g} s per run …")
    tput = await throughput(ports, calls, args)
    bursts = {}
    if args.burst:
        # The worker first writes what the earlier phases left, then each
        # socket's user signs in once (both servers' processes share sessions).
        await drained(args.burst_wait)
        cookies = {
            label: await sign_in(ports["daphne"], path)
            for label, path in fixture.login_paths.items()
        }
        for server in SERVERS:
            print(f"Burst: {args.burst} lifecycle events on {server} …", flush=True)
            logs = [children[server].log_path, children["worker"].log_path]
            bursts[server] = await burst(
                ports[server], server, calls[server], fixture, cookies, args, logs
            )
            bursts[server]["requested"] = args.burst
    if args.py_spy:
        pids = {server: children[server].process.pid for server in SERVERS}
        await profile(ports, pids, calls, args)

    def pooled(runs: list[Series]) -> dict:
        latencies = [ms for run in runs for ms in run.latencies]
        return {
            "rps": statistics.median(run.requests / run.seconds for run in runs),
            "p50": pct(latencies, 50),
            "p99": pct(latencies, 99),
            "problems": sum(len(run.problems) for run in runs),
        }

    return {
        "samples": args.samples,
        "concurrency": args.concurrency,
        "burst_size": args.burst,
        "sequential": {f"{s}/{t}": series.summary() for (s, t), series in seq.items()},
        "throughput": {f"{s}/{t}": pooled(runs) for (s, t), runs in tput.items()},
        "burst": bursts,
        "goals": goals(seq, bursts),
        "load_end": load(),
        "finished": time.strftime("%Y-%m-%d %H:%M"),
    }


def main() -> None:
    args = parse_args()

    # A SIGTERM ends the run like Ctrl-C does: through the finally blocks
    # that stop every server and drop the database.
    def interrupted(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    results = run(args)
    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    main()
