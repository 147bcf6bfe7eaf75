"""Benchmark: the MCP webhook receiver, against a bare Django view and across
serving setups — in one run, interleaved.

    .venv/bin/python bench/webhook_receiver.py                 # defaults below
    .venv/bin/python bench/webhook_receiver.py --rounds 3 --duration 5 --concurrency 32
    .venv/bin/python bench/webhook_receiver.py --profile       # where a request's time goes

What runs (all real): PostgreSQL (a throwaway ``<name>_bench_<run>``
database next to DATABASE_URL's), Redis, and the project's ASGI application
served twice at once — by one daphne process (the reference) and by the
serving the Procfile's ``web`` runs (``hot_path_servings.RECEIVER``: granian's
ASGI interface, a worker process per CPU). Each is measured on two paths;
bench/hot_path.py measures the receiver under every serving it compares.

- ``receiver``: ``POST /webhooks/mcp/<token>`` with every check on: Standard
  Webhooks signature over the raw body, freshness, token lookup, the
  statement that stores the event under its dedup constraint, moves the
  cursor and writes the outbox row for the host (an endpoint is configured,
  so the row is handed to the process's publisher, which sends Celery one
  task per burst on Redis — no worker consumes this bench's queue) and the
  live-page broadcast over the channel layer. Every request is a new event
  (unique webhook-id and eventId), spread over 16 subscriptions, so all are
  accepted and stored.
- ``bare``: an ``async def`` Django view that reads the body and answers the
  same JSON, behind the project's full middleware stack, on the same server.

Two measurements per target, interleaved round by round (targets alternate
order) so drift hits every target alike:

1. throughput: closed loop, ``--concurrency`` keep-alive connections sending
   back to back for ``--duration`` seconds → accepted requests per second;
2. latency: open loop at one fixed rate for all targets of a round (half of
   the lowest throughput just measured), latency counted from each request's
   scheduled send time (no coordinated omission) → p50 / p99.

Goals (bench/README.md, *Webhook receiver*): receiver ≥ 60 % of the bare view's throughput with p99 ≤
1.5× the bare view's, on the same server; receiver under the recommended
setup ≥ 3× the receiver under single daphne.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import shutil
import statistics
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(REPO), str(BENCH)]

from stack import database_create, drop_database, free_port, purge_queue  # noqa: E402
from webhook_load import Requests, Target, Window, closed_loop, open_loop  # noqa: E402

SUBSCRIPTIONS = 16


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per window")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/switchboard"),
    )
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--profile", action="store_true", help="profile one process instead")
    parser.add_argument("--keep-db", action="store_true")
    return parser.parse_args()


# --- environment, database, servers ---------------------------------------------------


def bench_env(args: argparse.Namespace, run: str) -> dict[str, str]:
    base, _, name = args.database_url.rpartition("/")
    env = {
        **os.environ,
        # A database of this run's own: a fixed name was dropped under one run
        # by another (this bench or another one) started beside it.
        "DATABASE_URL": f"{base}/{name.split('?')[0]}_bench_{run}",
        "REDIS_URL": args.redis_url,
        "DJANGO_SETTINGS_MODULE": "webhook_bench_settings",
        "PYTHONPATH": os.pathsep.join([str(REPO), str(BENCH), os.environ.get("PYTHONPATH", "")]),
        "ALLOW_PRIVATE_TARGETS": "1",
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        "CELERY_QUEUE": f"bench-{run}",
        "CHANNELS_PREFIX": f"bench{run}",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    return env


def setup_database(env: dict[str, str]) -> list[Target]:
    """A fresh bench database, migrated, with 16 active subscriptions and a host endpoint."""
    database_create(env)
    from outbox.services import host_endpoint_set
    from switchboard.actors import Actor
    from switchboard.models import EventType, McpServer
    from switchboard.services.hosts import host_create
    from switchboard.services.users import user_upsert

    actor = Actor.system("bench")
    host, _ = host_create(name="Bench", actor=actor)
    user, _ = user_upsert(host=host, external_id="bench-user", actor=actor)
    server = McpServer.objects.create(
        host=host, name="Bench server", url="https://mcp.bench.test/mcp", status="active"
    )
    EventType.objects.create(server=server, name="build.finished", delivery=["webhook"])
    host_endpoint_set(host=host, url="http://127.0.0.1:9/never-sent", actor=actor)
    return [
        webhook_subscription(host, user, server, n, remote_id=f"sub_bench_{n}")
        for n in range(SUBSCRIPTIONS)
    ]


def webhook_subscription(host, user, server, n: int, *, remote_id: str) -> Target:
    """An active ``build.finished`` webhook subscription (arguments ``acme/app-n``)
    and what a sender needs to deliver to it."""
    from outbox.signing import receiver_token_new, webhook_secret_new
    from subscriptions.models import Subscription
    from subscriptions.services.common import arguments_key

    arguments = {"repo": f"acme/app-{n}"}
    sub = Subscription(
        host=host,
        user=user,
        server=server,
        event_name="build.finished",
        arguments=arguments,
        arguments_key=arguments_key(arguments),
        status="active",
        token=receiver_token_new(),
        remote_id=remote_id,
    )
    secret = webhook_secret_new()
    sub.secret = secret
    sub.save(force_insert=True)
    return Target(sub.token, base64.b64decode(secret.removeprefix("whsec_")), sub.remote_id)


def recommended_argv(port: int) -> tuple[list[str], str]:
    """The serving of the webhook receiver in production (ASGI: its front
    answers before Django), as bench/hot_path.py starts it."""
    from hot_path_servings import KINDS, PROJECT_ASGI, RECEIVER

    _, label, argv = KINDS[RECEIVER]
    return argv(port, PROJECT_ASGI), label


# --- the run ------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict:
    from config import supervisor as sv

    run_id = uuid.uuid4().hex[:6]
    env = bench_env(args, run_id)
    print(f"Preparing {env['DATABASE_URL'].rsplit('/', 1)[1]} …", flush=True)
    targets = setup_database(env)
    ports = {"daphne": free_port(), "recommended": free_port()}
    logs = REPO / "var" / "bench-logs"
    supervisor = sv.Supervisor(env=env, log_dir=logs)
    recommended, label = recommended_argv(ports["recommended"])
    try:
        supervisor.start("bench-daphne", sv.daphne_argv(ports["daphne"]))
        supervisor.start("bench-recommended", recommended)
        for port in ports.values():
            sv.wait_for_http(f"http://127.0.0.1:{port}/healthz", timeout=60)
        results = asyncio.run(_measure(args, ports, targets, run_id))
    finally:
        supervisor.stop_all()
        purge_queue(env)
        if not args.keep_db:
            drop_database(env)
    results["setup"] = {
        "single": "daphne (1 process)",
        "recommended": label,
        "cpus": os.cpu_count(),
    }
    return results


async def _measure(args, ports, targets, run_id) -> dict:
    names = [
        ("daphne", "bare"), ("daphne", "receiver"),
        ("recommended", "bare"), ("recommended", "receiver"),
    ]  # fmt: skip
    makers = {
        (server, path): Requests("/bench/bare", targets, ports[server], run_id, path == "receiver")
        for server, path in names
    }
    # Warm up every target (connections, imports, first queries).
    for key in names:
        await closed_loop(ports[key[0]], makers[key], 1.0, args.concurrency)
    tput: dict[tuple, list[Window]] = {key: [] for key in names}
    lat: dict[tuple, list[Window]] = {key: [] for key in names}
    for round_no in range(args.rounds):
        order = names if round_no % 2 == 0 else list(reversed(names))
        for key in order:
            window = await closed_loop(ports[key[0]], makers[key], args.duration, args.concurrency)
            tput[key].append(window)
            print(
                f"  round {round_no + 1} throughput {key[0]:>11} {key[1]:<8} {window.rps:8.0f} req/s {dict(window.statuses)}",
                flush=True,
            )
        rate = 0.5 * min(tput[key][-1].rps for key in names)
        for key in order:
            window = await open_loop(
                ports[key[0]], makers[key], rate, args.duration, args.concurrency * 4
            )
            lat[key].append(window)
            print(
                f"  round {round_no + 1} latency @{rate:5.0f}/s {key[0]:>11} {key[1]:<8} p50 {window.quantile(0.5):6.1f} ms  p99 {window.quantile(0.99):6.1f} ms",
                flush=True,
            )
    summary = {}
    for key in names:
        summary[f"{key[0]}/{key[1]}"] = {
            "rps": statistics.median(w.rps for w in tput[key]),
            "p50_ms": statistics.median(w.quantile(0.5) for w in lat[key]),
            "p99_ms": statistics.median(w.quantile(0.99) for w in lat[key]),
            "non_200": sum(
                sum(n for s, n in w.statuses.items() if s != 200) for w in tput[key] + lat[key]
            ),
        }
    return {
        "targets": summary,
        "rounds": args.rounds,
        "duration": args.duration,
        "concurrency": args.concurrency,
    }


def report(results: dict) -> None:
    t = results["targets"]
    setup = results["setup"]
    print()
    print(
        f"Single: {setup['single']}   Recommended: {setup['recommended']}   CPUs: {setup['cpus']}"
    )
    print(f"{'target':<24}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'non-200':>10}")
    for name, row in t.items():
        print(
            f"{name:<24}{row['rps']:>10.0f}{row['p50_ms']:>10.1f}{row['p99_ms']:>10.1f}{row['non_200']:>10}"
        )
    print()
    for server in ("recommended", "daphne"):
        bare, receiver = t[f"{server}/bare"], t[f"{server}/receiver"]
        share = receiver["rps"] / bare["rps"]
        p99 = receiver["p99_ms"] / bare["p99_ms"]
        verdict = "met" if share >= 0.6 and p99 <= 1.5 else "MISSED"
        print(
            f"{server:>11}: receiver = {share:5.0%} of the bare view, p99 {p99:4.2f}× (goal ≥ 60 %, ≤ 1.5×): {verdict}"
        )
    speedup = t["recommended/receiver"]["rps"] / t["daphne/receiver"]["rps"]
    print(
        f"recommended setup / single daphne, receiver: {speedup:4.2f}× (goal ≥ 3×): {'met' if speedup >= 3 else 'MISSED'}"
    )


# --- profile ------------------------------------------------------------------------------


def profile(args: argparse.Namespace) -> None:
    """Where one delivery's time goes, in-process (no network, no server):

    1. the whole ASGI path, receiver and bare view alike, timed per request;
    2. the statements one accepted delivery and its duplicate ask of the
       database (BEGIN and COMMIT counted: each is a round trip);
    3. the receiver's sync part (what runs in the worker thread: lookup,
       verification, the statement, page rendering) called in this thread
       under cProfile, with the publisher thread's Celery sends (cProfile
       sees other threads on Python ≥ 3.12).
    """
    import cProfile
    import pstats

    run_id = uuid.uuid4().hex[:6]
    env = bench_env(args, run_id)
    targets = setup_database(env)
    from config.asgi import application
    from subscriptions.views import _receive_in_worker_thread

    def split(data: bytes) -> tuple[str, str, dict[str, str], bytes]:
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        method, path, _ = lines[0].split(" ")
        headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:])}
        return method, path, headers, body

    async def call(data: bytes) -> int:
        method, path, headers, body = split(data)
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
            "root_path": "", "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
            "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80),
        }  # fmt: skip
        messages = [{"type": "http.request", "body": body, "more_body": False}]
        status = {}

        async def receive():
            if messages:
                return messages.pop(0)
            await asyncio.Event().wait()  # the client stays connected

        async def send(message):
            if message["type"] == "http.response.start":
                status["code"] = message["status"]

        await application(scope, receive, send)
        return status["code"]

    async def drive(make: Requests, n: int) -> tuple[float, Counter]:
        codes: Counter = Counter()
        started = time.perf_counter()
        for _ in range(n):
            codes[await call(make())] += 1
        return (time.perf_counter() - started) / n * 1000, codes

    try:
        print("1. The whole ASGI path, one request at a time, in-process:")
        for path in ("bare", "receiver"):
            make = Requests("/bench/bare", targets, 80, run_id, path == "receiver")
            asyncio.run(drive(make, 100))
            per_request, codes = asyncio.run(drive(make, 1000))
            print(f"   {path:<9} {per_request:6.2f} ms per request {dict(codes)}")
        make = Requests("/bench/bare", targets, 81, run_id, True)  # new events, not replays

        def one(data: bytes | None = None) -> int:
            _, path, headers, body = split(data or make())
            token = path.rsplit("/", 1)[1]
            return _receive_in_worker_thread(token=token, headers=headers, body=body).status

        print("\n2. Statements per delivery:")
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        data = make()
        for label in ("accepted", "duplicate"):
            with CaptureQueriesContext(connection) as captured:
                status = one(data)
            statements = [q["sql"].split(" ", 1)[0] for q in captured.captured_queries]
            print(f"   {label:<9} {len(statements)} ({' '.join(statements)}) → {status}")

        print("\n3. The receiver's sync part in this thread, under cProfile (cumulative):")

        for _ in range(100):
            one()
        profiler = cProfile.Profile()
        profiler.enable()
        started = time.perf_counter()
        codes = Counter(one() for _ in range(1000))
        took = (time.perf_counter() - started) / 1000 * 1000
        profiler.disable()
        print(f"   {took:.2f} ms per delivery under the profiler {dict(codes)}")
        pstats.Stats(profiler).strip_dirs().sort_stats("cumulative").print_stats(35)
    finally:
        purge_queue(env)
        if not args.keep_db:
            drop_database(env)


def main() -> None:
    args = parse_args()
    if args.profile:
        profile(args)
        return
    if not shutil.which(sys.executable):
        raise SystemExit("run with the project's Python")
    results = run(args)
    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
