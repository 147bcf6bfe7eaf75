"""Push streams: what one session worker costs, held and busy.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/switchboard REDIS_URL=redis://127.0.0.1:6379/0 \\
      .venv/bin/python bench/push_streams.py [--streams 1000] [--rate 100] [--events 1000]

Goals (bench/README.md, *Push streams*):
- one session worker holds 1,000 idle push streams against the reference
  server within 300 MB RSS;
- event -> host outbox row p99 <= 20 ms at 100 events/s.

Setup: a throwaway database, the reference server (heartbeat every 30 s, as
servers are advised), one ``manage.py session_worker`` process, and
``--streams`` push subscriptions of one user, each with its own arguments
(``environment``), so each event reaches exactly one stream. The worker's
RSS is read from /proc once every stream is open and idle. Then ``--events``
events are emitted at ``--rate`` per second, each to a random stream; the
latency of one is from the moment the reference server accepted it (its
clock when the event entered its log, returned by the control call) to the
``created_at`` of its outbox row (set by the worker; same machine, same
clock). The CPU time the worker and the reference server spent per event
while the events were emitted is printed too: unlike the latencies, it
hardly moves when other work shares the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import signal
import statistics
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["CELERY_QUEUE"] = f"bench-push-{uuid.uuid4().hex[:8]}"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from bench.conversation_fanout import Processes, database_url, free_port, wait_http  # noqa: E402


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def spy_start(directory: Path | None, pids: dict[str, int]) -> list[subprocess.Popen]:
    """``py-spy record`` of each process, until ``spy_stop``."""
    if directory is None:
        return []
    directory.mkdir(parents=True, exist_ok=True)
    spy = str(Path(sys.executable).parent / "py-spy")
    return [
        subprocess.Popen(
            [spy, "record", "--pid", str(pid), "--rate", "200", "--nonblocking", "--threads"]
            + ["--format", "raw", "-o", str(directory / f"{name}.txt")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name, pid in pids.items()
    ]


def spy_stop(spies: list[subprocess.Popen]) -> None:
    for spy in spies:
        spy.send_signal(signal.SIGINT)
    for spy in spies:
        spy.wait(timeout=60)


def seed(refserver_url: str, streams: int) -> None:
    from consent.models import Scope
    from consent.services import grant_approve, grant_request
    from outbox.signing import webhook_secret_new
    from subscriptions.models import Subscription
    from subscriptions.services.common import arguments_key
    from switchboard.actors import Actor
    from switchboard.crypto import encrypt_text
    from switchboard.services.hosts import host_create
    from switchboard.services.servers import server_register
    from switchboard.services.users import user_upsert

    actor = Actor.system("bench")
    host, _ = host_create(name="Bench push", actor=actor)
    user, _ = user_upsert(host=host, external_id="bench-user", actor=actor)
    server = server_register(host=host, name="ref", url=refserver_url, actor=actor)
    grant = grant_request(
        user=user, server=server, scope=Scope.EVENTS, actor=actor, event_types=["deploy.status"]
    )
    grant_approve(grant=grant, actor=Actor.for_user(user), event_types=["deploy.status"])
    secret = encrypt_text(webhook_secret_new())
    Subscription.objects.bulk_create(
        [
            Subscription(
                host=host,
                user=user,
                server=server,
                event_name="deploy.status",
                arguments={"environment": f"env-{i}"},
                arguments_key=arguments_key({"environment": f"env-{i}"}),
                mode="push",
                status="active",
                token=uuid.uuid4().hex,
                secret_encrypted=secret,
            )
            for i in range(streams)
        ],
        batch_size=1000,
    )


async def emit_all(base: str, streams: int, events: int, rate: float) -> dict[str, float]:
    """Emit at ``rate``/s; returns eventId -> wall-clock time it was accepted."""
    import httpx

    accepted: dict[str, float] = {}
    async with httpx.AsyncClient(timeout=10) as client:

        async def one(i: int) -> None:
            env = f"env-{random.randrange(streams)}"
            answer = await client.post(
                f"{base}/control/emit",
                json={
                    "name": "deploy.status",
                    "data": {"state": f"step-{i}", "environment": env},
                    "arguments": {"environment": env},
                },
            )
            # The server's own clock when the event entered its log: the
            # emitter's clock after reading the answer would start late
            # (its event loop is as busy as the machine), flattering the
            # figure by up to the time the answer took to be read.
            body = answer.json()
            accepted[body["eventId"]] = body["emittedAt"]

        tasks = []
        started = time.monotonic()
        for i in range(events):
            await asyncio.sleep(max(0.0, started + i / rate - time.monotonic()))
            tasks.append(asyncio.create_task(one(i)))
        await asyncio.gather(*tasks)
    return accepted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=100)
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument(
        "--trace",
        type=Path,
        help="write one line per event (eventId, accepted, outbox row; epoch seconds)",
    )
    parser.add_argument(
        "--py-spy",
        type=Path,
        metavar="DIR",
        help="sample the worker and the reference server with py-spy while the events "
        "are emitted (collapsed stacks, non-blocking, threads apart) into DIR",
    )
    args = parser.parse_args()

    import django

    django.setup()
    import httpx
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    from config import supervisor as sv
    from outbox.models import HostDelivery

    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    processes = Processes(ROOT / "var" / "bench-logs")
    try:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        ref_port = free_port()
        ref = processes.start(
            "refserver", [*sv.refserver_argv(ref_port), "--heartbeat-ms", "30000"], env
        )
        base = f"http://127.0.0.1:{ref_port}"
        wait_http(f"{base}/healthz", ref)
        seed(f"{base}/mcp", args.streams)
        worker_env = {
            **env,
            "DATABASE_URL": database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "ALLOW_PRIVATE_TARGETS": "1",
        }
        connection.close()
        print(
            f"Push streams — {connection.vendor}, {os.cpu_count()} CPUs, Python "
            f"{sys.version.split()[0]}, load {os.getloadavg()[0]:.2f}"
        )
        started = time.monotonic()
        worker = processes.start("session-worker", sv.session_worker_argv(), worker_env)
        while True:
            held = len(httpx.get(f"{base}/control/subscriptions", timeout=30).json()["streams"])
            if held >= args.streams:
                break
            if worker.poll() is not None:
                raise SystemExit("the session worker exited; see var/bench-logs/session-worker.log")
            if time.monotonic() - started > 600:
                raise SystemExit(f"only {held} streams open after 10 minutes")
            time.sleep(1)
        opened = time.monotonic() - started
        time.sleep(5)  # idle
        rss = rss_mb(worker.pid)
        print(f"\n{args.streams} streams open after {opened:.1f} s; worker RSS {rss:.0f} MB")
        print(f"  goal ≤ 300 MB: {'met' if rss <= 300 else 'MISSED'}")

        # The emitter's own collector would pause it for 100-200 ms and then
        # send a burst: a figure of this harness, not of the worker.
        spies = spy_start(args.py_spy, {"worker": worker.pid, "refserver": ref.pid})
        cpu_before = {pid: cpu_seconds(pid) for pid in (worker.pid, ref.pid)}
        gc.disable()
        try:
            accepted = asyncio.run(emit_all(base, args.streams, args.events, args.rate))
        finally:
            gc.enable()
        deadline = time.monotonic() + 60
        rows: dict[str, datetime] = {}
        while time.monotonic() < deadline and len(rows) < len(accepted):
            rows = {
                d.body["data"]["event"]["eventId"]: d.created_at
                for d in HostDelivery.objects.filter(type="event.received")
            }
            time.sleep(0.5)
        # Once the last event has landed (its outbox row is there), so the
        # figure holds all the work the events caused.
        cpu_per_event = {
            pid: (cpu_seconds(pid) - before) * 1000 / args.events
            for pid, before in cpu_before.items()
        }
        load = os.getloadavg()[0]
        spy_stop(spies)
        latencies = [
            (rows[event_id] - datetime.fromtimestamp(at, UTC)).total_seconds() * 1000
            for event_id, at in accepted.items()
            if event_id in rows
        ]
        lost = len(accepted) - len(latencies)
        # If the machine could not even emit at the rate asked, the latencies
        # say more about it than about the worker.
        spread = max(accepted.values()) - min(accepted.values())
        achieved = (len(accepted) - 1) / spread if spread > 0 else float("inf")
        if args.trace:
            args.trace.write_text(
                "".join(
                    f"{event_id} {at:.6f} "
                    f"{rows[event_id].timestamp() if event_id in rows else float('nan'):.6f}\n"
                    for event_id, at in accepted.items()
                )
            )
        print(
            f"\n{len(accepted)} events at {args.rate:g}/s → outbox rows: "
            f"p50 {statistics.median(latencies):.1f} ms, p95 {pct(latencies, 95):.1f} ms, "
            f"p99 {pct(latencies, 99):.1f} ms, "
            f"max {max(latencies):.1f} ms; {lost} missing"
        )
        print(f"  emitted at {achieved:.0f}/s (asked {args.rate:g}/s)")
        p99 = pct(latencies, 99)
        print(f"  goal p99 ≤ 20 ms: {'met' if p99 <= 20 and not lost else 'MISSED'}")
        print(
            f"  CPU per event: worker {cpu_per_event[worker.pid]:.2f} ms, reference server "
            f"{cpu_per_event[ref.pid]:.2f} ms; load {load:.2f} after the events"
        )
        print(f"  worker RSS after: {rss_mb(worker.pid):.0f} MB")
    finally:
        processes.stop()
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
