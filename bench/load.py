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
import gc
import json
import os
import secrets
import shutil
import signal
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(REPO), str(BENCH)]

from load_clients import Browsers, Endpoint  # noqa: E402
from load_fixture import Fixture, queue_depth, setup_database  # noqa: E402
from load_report import report, rss_mb, summarize  # noqa: E402
from load_traffic import Conversations, Sent, conversations, deliveries  # noqa: E402
from stack import (  # noqa: E402 - needs the path above
    drop_database,
    free_port,
    load_average,
    pct,
    purge_queue,
    sign_in,
)
from webhook_load import Requests, closed_loop  # noqa: E402
from webhook_receiver import bench_env  # noqa: E402


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
