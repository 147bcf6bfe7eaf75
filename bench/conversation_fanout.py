"""Benchmark: the conversation fan-out (POST /api/v1/conversations/{id}/messages).

    .venv/bin/python bench/conversation_fanout.py                 # 1,000 calls per case
    .venv/bin/python bench/conversation_fanout.py --calls 200 --hang-calls 50  # the goals' run
    .venv/bin/python bench/conversation_fanout.py --quick         # a smoke run: 100 / 20 calls
    .venv/bin/python bench/conversation_fanout.py --profile       # + cProfile of the fan-out

What runs, all real: the console under daphne (a throwaway database, Redis),
the reference MCP server in another process (each "server" is one more
registration of it, so each gets its own MCP session), and a host client
calling the API over HTTP with keep-alive, one message at a time.

Cases: 1, 5 and 20 consented servers that answer after ``--delay`` ms
(well inside the 500 ms budget); then 4 of those plus one server (a second
reference server process) that never answers.

"Added latency over the slowest in-budget server" is measured per message,
paired: right before each console call the benchmark itself sends the same
message to the same servers over its own already-open sessions, all at once
(an ideal client with nothing else to do). ``added = console − direct``:
what the console adds on top of what the servers and the MCP SDK cost
anyway — the API hop, auth, consent checks, dispatch, merging and the
records. Also reported: ``console − slowest item`` (the slowest server as
the console itself timed it) and ``console − delay``.

The one-server-never-answers case reports how far past the host's budget
the reply comes (``console − budget``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
import uuid
from contextlib import AsyncExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RUN = uuid.uuid4().hex[:8]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("ALLOW_PRIVATE_TARGETS", "1")
os.environ.setdefault("TEST_DB_SUFFIX", f"bench{RUN}")
os.environ.setdefault("CELERY_QUEUE", f"bench-{RUN}")  # nobody consumes: host deliveries wait
os.environ.setdefault("CHANNELS_PREFIX", f"swbbench{RUN}")
# Servers that never answer must stay in the run, not be switched off.
os.environ.setdefault("CONVERSATION_TIMEOUTS_TO_DISABLE", "1000000000")
os.environ.setdefault("LOG_LEVEL", "WARNING")

BUDGET_MS = 500
GOALS = {5: 10.0, 20: 25.0}  # p99 added, ms
PAST_BUDGET_GOAL = 5.0


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def summary(samples: list[float]) -> str:
    return (
        f"p50 {pct(samples, 50):7.2f}  p90 {pct(samples, 90):7.2f}  "
        f"p99 {pct(samples, 99):7.2f}  max {max(samples):7.2f}  mean {statistics.fmean(samples):7.2f}"
    )


def wait_http(url: str, process: subprocess.Popen, timeout: float = 60) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{process.args} exited with {process.returncode}")
        try:
            if httpx.get(url, timeout=1).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"{url} did not come up")


class Processes:
    def __init__(self, log_dir: Path):
        self.children: list[subprocess.Popen] = []
        self.log_dir = log_dir
        log_dir.mkdir(parents=True, exist_ok=True)

    def start(self, name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen:
        log = (self.log_dir / f"{name}.log").open("wb")
        child = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        self.children.append(child)
        return child

    def stop(self) -> None:
        for child in self.children:
            child.terminate()
        for child in self.children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url() -> str:
    from django.conf import settings
    from django.db import connection

    if connection.vendor == "sqlite":
        return f"sqlite:///{connection.settings_dict['NAME']}"
    return settings.DATABASE_URL.rsplit("/", 1)[0] + "/" + connection.settings_dict["NAME"]


def seed(refserver_url: str, hanging_url: str) -> tuple[str, list, object]:
    """A host, a user, 20 healthy servers and 1 that hangs, all consented."""
    from consent.services import Decision, consent_request_create, consent_request_decide
    from switchboard.actors import Actor
    from switchboard.services.hosts import host_create
    from switchboard.services.servers import server_register
    from switchboard.services.users import user_upsert

    actor = Actor.system("bench")
    host, key = host_create(name=f"Bench {RUN}", actor=actor)
    user, _ = user_upsert(host=host, external_id="bench-user", actor=actor)
    servers = [
        server_register(host=host, name=f"ref-{i:02d}", actor=actor, url=refserver_url)
        for i in range(20)
    ]
    hanging = server_register(host=host, name="never-answers", actor=actor, url=hanging_url)
    for server in [*servers, hanging]:
        if server.status != "active":
            raise SystemExit(f"{server.name} did not sync: {server.last_error_detail}")
        request, _ = consent_request_create(
            host=host, user=user, server=server, scopes=["conversation:read"], actor=actor
        )
        consent_request_decide(
            request=request,
            decisions={g.id: Decision(allow=True) for g in request.grants.all()},
            remember="forever",
            actor=actor,
        )
    return key, servers, hanging


async def run_case(
    *, api, sessions, server_ids: list[str], calls: int, warmup: int, label: str
) -> dict:
    """Paired calls: the ideal direct fan-out, then the console's."""
    added, vs_slowest, in_handler, console, direct, late = [], [], [], [], [], []
    for n in range(warmup + calls):
        message = {"message_id": f"{label}-{n}", "content": "What about the database schema?"}
        started = time.perf_counter()
        await asyncio.gather(
            *(
                s.user_message(
                    message_id=message["message_id"], content=message["content"], timeout=5
                )
                for s in sessions
            )
        )
        direct_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        answer = await api.post(
            "/conversations/bench/messages",
            json={"user": "bench-user", "servers": server_ids, **message},
        )
        console_ms = (time.perf_counter() - started) * 1000
        body = answer.json()
        if n < warmup:
            continue  # sessions are being opened: first answers may come late
        if answer.status_code != 200:
            raise SystemExit(f"{label}: unexpected answer {answer.status_code}: {body}")
        if len(body["items"]) != len(server_ids):
            late.append(console_ms)  # a server missed the budget: no "slowest in-budget" here
            continue
        slowest = max(item["latency_ms"] for item in body["items"])
        console.append(console_ms)
        direct.append(direct_ms)
        added.append(console_ms - direct_ms)
        vs_slowest.append(console_ms - slowest)
        in_handler.append(body["elapsed_ms"] - slowest)
    return {
        "console": console,
        "direct": direct,
        "added": added,
        "vs_slowest": vs_slowest,
        "in_handler": in_handler,
        "late": late,
    }


async def run_hanging(*, api, server_ids: list[str], calls: int) -> dict[str, list[float]]:
    past, in_handler = [], []
    for n in range(calls):
        started = time.perf_counter()
        answer = await api.post(
            "/conversations/bench/messages",
            json={
                "user": "bench-user",
                "servers": server_ids,
                "message_id": f"hang-{n}",
                "content": "hi",
            },
        )
        elapsed = (time.perf_counter() - started) * 1000
        reasons = [s["reason"] for s in answer.json()["skipped"]]
        if reasons != ["timeout"]:
            raise SystemExit(f"expected one timeout, got {answer.json()}")
        past.append(elapsed - BUDGET_MS)
        in_handler.append(answer.json()["elapsed_ms"] - BUDGET_MS)
    return {"past_budget": past, "in_handler": in_handler}


async def run_baseline(*, api, calls: int) -> list[float]:
    """Any API call's cost here: an authenticated GET of the user (daphne,
    Django, ninja, the API key, a database connection)."""
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        answer = await api.get("/users/bench-user")
        samples.append((time.perf_counter() - started) * 1000)
        if answer.status_code != 200:
            raise SystemExit(f"baseline: {answer.status_code}")
    return samples


async def measure(args, base_url: str, key: str, refserver_url: str, servers, hanging) -> dict:
    import httpx

    from switchboard.mcp.session import McpSession, McpTarget

    results: dict[str, object] = {}
    limits = httpx.Limits(max_keepalive_connections=4)
    async with (
        httpx.AsyncClient(
            base_url=f"{base_url}/api/v1",
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
            limits=limits,
        ) as api,
        AsyncExitStack() as stack,
    ):
        sessions = [
            await stack.enter_async_context(
                McpSession(McpTarget(url=refserver_url, server_id=s.id))
            )
            for s in servers
        ]
        for count in (1, 5, 20):
            ids = [s.id for s in servers[:count]]
            results[count] = await run_case(
                api=api,
                sessions=sessions[:count],
                server_ids=ids,
                calls=args.calls,
                warmup=args.warmup,
                label=f"n{count}",
            )
            print(
                f"\n{count:2d} server(s), {args.calls} calls, each server answers after {args.delay} ms"
            )
            for name in ("console", "direct", "added", "vs_slowest", "in_handler"):
                print(f"  {name:>10}  {summary(results[count][name])}")
            if results[count]["late"]:
                print(
                    f"  {len(results[count]['late'])} call(s) where a server missed the budget (left out)"
                )
        ids = [s.id for s in servers[:4]] + [hanging.id]
        results["hanging"] = await run_hanging(api=api, server_ids=ids, calls=args.hang_calls)
        print(f"\n4 servers + 1 that never answers, {args.hang_calls} calls, budget {BUDGET_MS} ms")
        print(f"  past budget  {summary(results['hanging']['past_budget'])}")
        print(f"   in_handler  {summary(results['hanging']['in_handler'])}")
        results["baseline"] = await run_baseline(api=api, calls=args.calls)
        print(f"\nBaseline: GET /api/v1/users/{{id}}, {args.calls} calls")
        print(f"      any call  {summary(results['baseline'])}")
    return results


def profile_fanout(args, servers) -> None:
    """In-process fan-out to 20 servers (no HTTP hop, no API key): where the
    time goes, step by step, and a cProfile of the same calls."""
    import cProfile
    import pstats

    from consent.services.conversation import conversation_message
    from switchboard.models import Host

    host = Host.objects.get(name=f"Bench {RUN}")
    ids = [s.id for s in servers]
    phases: dict[str, list[float]] = {}

    async def many(count: int, keep: bool) -> None:
        for n in range(count):
            result = await conversation_message(
                host=host,
                conversation_id="bench-profile",
                user_external_id="bench-user",
                message_id=f"p{n}",
                content="What about the database schema?",
                server_ids=ids,
            )
            if keep and result.items:
                slowest = max(item["latency_ms"] for item in result.items)
                phases.setdefault("beyond slowest", []).append(result.elapsed_ms - slowest)
                for name, ms in result.phases_ms.items():
                    phases.setdefault(name, []).append(ms)

    async def run() -> None:
        await many(20, keep=False)  # open the sessions first
        profiler.enable()
        await many(args.profile_calls, keep=True)
        profiler.disable()

    profiler = cProfile.Profile()
    asyncio.run(run())
    print(f"\nIn-process fan-out to 20 servers, {args.profile_calls} calls, per step (ms)")
    for name, samples in phases.items():
        print(f"  {name:>15}  {summary(samples)}")
    print("\ncProfile of those calls (internal time, top 25)")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--hang-calls", type=int, default=100)
    parser.add_argument("--delay", type=int, default=50, help="ms each healthy server waits")
    parser.add_argument(
        "--quick", action="store_true", help="100 calls per case, 20 hanging, 10 warm-up"
    )
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--profile-calls", type=int, default=100)
    args = parser.parse_args()
    if args.quick:
        args.calls, args.hang_calls, args.warmup = 100, 20, 10

    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    from config import supervisor as sv

    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    processes = Processes(ROOT / "var" / "bench-logs")
    try:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        ref_port, hang_port, web_port = free_port(), free_port(), free_port()
        ref = processes.start("refserver", sv.refserver_argv(ref_port), env)
        hang = processes.start("refserver-hanging", sv.refserver_argv(hang_port), env)
        wait_http(f"http://127.0.0.1:{ref_port}/healthz", ref)
        wait_http(f"http://127.0.0.1:{hang_port}/healthz", hang)
        import httpx

        method = "conversation/userMessage"
        httpx.post(
            f"http://127.0.0.1:{ref_port}/control/behaviour",
            json={"method": method, "delay_ms": args.delay},
        )
        httpx.post(
            f"http://127.0.0.1:{hang_port}/control/behaviour",
            json={"method": method, "fail": "hang"},
        )

        ref_url = f"http://127.0.0.1:{ref_port}/mcp"
        key, servers, hanging = seed(ref_url, f"http://127.0.0.1:{hang_port}/mcp")
        base_url = f"http://127.0.0.1:{web_port}"
        web_env = {
            **env,
            "DATABASE_URL": database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "PUBLIC_BASE_URL": base_url,
        }
        web = processes.start("daphne", sv.daphne_argv(web_port), web_env)
        wait_http(f"{base_url}/healthz", web)
        connection.close()

        print(
            f"Switchboard conversation fan-out — {os.cpu_count()} CPUs, Python "
            f"{sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f} at the start"
        )
        results = asyncio.run(measure(args, base_url, key, ref_url, servers, hanging))

        print(f"\nLoad average at the end: {os.getloadavg()[0]:.2f}")
        print("\nGoals")
        for count, goal in GOALS.items():
            p99 = pct(results[count]["added"], 99)
            print(
                f"  {count:2d} servers: p99 added {p99:6.2f} ms (goal ≤ {goal:g}) {'met' if p99 <= goal else 'MISSED'}"
            )
        past = pct(results["hanging"]["past_budget"], 99)
        print(
            f"  never-answering server: p99 {past:6.2f} ms past the budget (goal ≤ {PAST_BUDGET_GOAL:g}) {'met' if past <= PAST_BUDGET_GOAL else 'MISSED'}"
        )
        for count in GOALS:
            print(
                f"  {count:2d} servers, inside the handler: p99 {pct(results[count]['in_handler'], 99):6.2f} ms"
            )
        print(
            "  never-answering server, inside the handler: p99 "
            f"{pct(results['hanging']['in_handler'], 99):6.2f} ms past the budget"
        )
        if args.profile:
            profile_fanout(args, servers)
    finally:
        processes.stop()
        if connection.vendor == "postgresql":
            # Threads of the in-process profile kept connections of their own.
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
