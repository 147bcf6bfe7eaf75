"""Benchmark: the host's hot path (bench/README.md, *Hot path*) — the calls a host makes on every
turn of its agent, under six servings side by side in one run.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/switchboard REDIS_URL=redis://127.0.0.1:6379/0 \\
      .venv/bin/python bench/hot_path.py                          # 8-10 minutes on a quiet machine
    .venv/bin/python bench/hot_path.py --quick                    # a smoke run, ~3 minutes
    .venv/bin/python bench/hot_path.py --py-spy var/hot-path      # + where the time goes

What runs, all real: PostgreSQL (a throwaway ``<name>_hot_path_<run>``
database next to DATABASE_URL's, a copy of a migrated template, dropped by
the run), Redis, a Celery worker on a queue of the run's own (the Procfile's
``worker``: it writes what a lifecycle event leaves after its answer), and the
project's application served six ways at once (``hot_path_servings.py``
says which and why those process and thread counts): one daphne process (the
reference), uvicorn ×2, gunicorn with threads and granian's WSGI interface
(WSGI: the API's and pages' views are sync), granian's ASGI interface (the
Procfile's ``web``), and Django's stock handler (every middleware on every
route, ``hot_path_apps.py``) under the recommended serving, so a change to
the project's entry points is measured against what it replaced. All use
``bench/hot_path_settings.py``: the project's settings and URLs plus
the bare views of the webhook bench and a ``Server-Timing`` stamp of the time
spent in Django. The data is made by the project's own services: a host and
its API key, an end user, a staff admin, ``--hook-servers`` servers (stored
rows, as a host registers its own; no MCP server is contacted, since no hook
has a ``context_tool``) each declaring five hooks, all approved by the user.

Targets, on every serving:

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
- ``receiver``: ``POST /webhooks/mcp/<token>``, a signed delivery (each a new
  event) to one of sixteen subscriptions, as bench/webhook_receiver.py sends
  (no host endpoint here: this run's worker would try to deliver them).

Phases:

1. Sequential latency: one request at a time on a keep-alive connection per
   target, after ``--warmup`` untimed rounds; every round visits all targets
   of every serving in a fresh random order, so load noise from elsewhere on
   the machine hits every target alike. p50/p99 of the whole call as the
   client sees it, and of the time in Django (``Server-Timing``).
2. Throughput: ``--concurrency`` connections sending back to back for
   ``--duration`` seconds per target (each lifecycle connection its own
   session, as concurrent agents have), ``--rounds`` rounds, the order of the
   targets reversed every other round.
3. Burst: a signed-in end user's and a staff admin's ``/ws/live/`` sockets
   open on the serving (signed in by one-time login links, as browsers are;
   a WSGI serving's, and the stock handler's, on daphne, as production
   routes ``/ws/`` to an ASGI process),
   then ``--burst`` lifecycle events with five injections each,
   ``--burst-concurrency`` at once. Every event's timeline entry must reach
   both sockets, every ledger entry the user's activity feed and the staff
   feed (the broadcast helper batches what waits for one page into one
   message; the ids inside are counted), and the servers' logs must show no
   broadcast error.

Goals (bench/README.md, *Hot path*), printed ``met``/``MISSED`` per serving
and judged under the recommended one (``--recommended``): 1. ``user`` p50
≤ 1.5× and p99 ≤ 2× ``bare`` under the same serving; 4. ``lifecycle-5`` p99
≤ 8 ms, ``lifecycle-0`` p99 ≤ 4 ms, the whole call over HTTP; 6. the burst:
0 broadcast errors, every update delivered; 3×: throughput ≥ 3× one
daphne's on ``user``, ``lifecycle-0`` and ``receiver``. The report also
ranks the servings per kind of traffic (API, pages, receiver, websockets).
Goals 2 and 3 are measured by ``conversation_fanout.py``, 5 by
``webhook_receiver.py``.

This file is the entry point and the run; its parts live beside it:
``hot_path_servings.py`` (the servings), ``hot_path_apps.py`` (the WSGI and
stock applications they serve),
``hot_path_calls.py`` (the data and each target's request),
``hot_path_load.py`` (the sequential and throughput phases),
``hot_path_burst.py`` (the burst and its live sockets),
``hot_path_profile.py`` (``--py-spy``, read by ``hot_path_stacks.py``) and
``hot_path_report.py`` (the goals and the printed report).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import sys
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(REPO), str(BENCH)]

from hot_path_burst import burst, drained  # noqa: E402 - needs the path above
from hot_path_calls import SERVERS, Calls, Fixture, setup_database  # noqa: E402
from hot_path_load import Series, sequential, throughput  # noqa: E402
from hot_path_profile import profile  # noqa: E402
from hot_path_report import goals, report  # noqa: E402
from hot_path_servings import KINDS, RECOMMENDED, SOCKETS, servings  # noqa: E402
from stack import (  # noqa: E402
    drop_database,
    free_port,
    pct,
    purge_queue,
    sign_in,
)
from stack import load_average as load  # noqa: E402
from webhook_receiver import bench_env  # noqa: E402


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=400, help="sequential calls per target")
    parser.add_argument("--warmup", type=int, default=40, help="untimed sequential rounds")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--duration", type=float, default=2.0, help="seconds per throughput run")
    parser.add_argument("--rounds", type=int, default=2, help="throughput rounds")
    parser.add_argument("--burst", type=int, default=1000, help="lifecycle events in the burst")
    parser.add_argument("--burst-concurrency", type=int, default=16)
    parser.add_argument("--burst-wait", type=float, default=120, help="seconds to wait for updates")
    parser.add_argument("--hook-servers", type=int, default=5)
    parser.add_argument(
        "--recommended",
        choices=list(KINDS),
        default=RECOMMENDED,
        help="the serving the goals are judged under, and the stock handler served by",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run (~2 minutes): few calls, short windows, a small burst",
    )
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


QUICK = {
    "samples": 40,
    "warmup": 5,
    "duration": 0.5,
    "rounds": 1,
    "burst": 40,
    "burst_wait": 30,
}


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
    served = servings(ports, args.recommended)
    try:
        fixture = setup_database(env, args.hook_servers)
        children = {
            **{
                name: supervisor.start(f"hot-path-{name}", serving.argv)
                for name, serving in served.items()
            },
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
        results = asyncio.run(measure(args, ports, children, fixture, served, run_id))
    finally:
        supervisor.stop_all()
        purge_queue(env)
        if not args.keep_db:
            drop_database(env)
    results.update(
        load_start=load_start,
        setup={
            "recommended": args.recommended,
            "servings": {name: serving.label for name, serving in served.items()},
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
        },
    )
    return results


async def measure(args, ports, children, fixture: Fixture, served, run_id: str) -> dict:
    calls = {server: Calls(port, fixture, run_id) for server, port in ports.items()}
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
            # WSGI has no WebSockets, nor Django's stock ASGI handler: their
            # live sockets are the socket serving's, as production routes
            # /ws/ to it; the updates still leave from the serving's processes.
            own = served[server].interface == "asgi" and server != "stock"
            ws_port = ports[server if own else SOCKETS]
            print(f"Burst: {args.burst} lifecycle events on {server} …", flush=True)
            logs = [children[server].log_path, children["worker"].log_path]
            bursts[server] = await burst(
                ports[server], ws_port, server, calls[server], fixture, cookies, args, logs
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

    rates = {key: pooled(runs) for key, runs in tput.items()}
    return {
        "samples": args.samples,
        "concurrency": args.concurrency,
        "burst_size": args.burst,
        "sequential": {f"{s}/{t}": series.summary() for (s, t), series in seq.items()},
        "throughput": {f"{s}/{t}": rate for (s, t), rate in rates.items()},
        "burst": bursts,
        "goals": goals(seq, rates, bursts, args.recommended),
        "load_end": load(),
        "finished": time.strftime("%Y-%m-%d %H:%M"),
    }


def main() -> None:
    args = parse_args()
    if args.quick:
        for name, value in QUICK.items():
            setattr(args, name, value)

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
