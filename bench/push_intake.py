"""Push intake: the write thread's CPU for one burst of stream frames, the
two-statement path (PostgreSQL) against the ORM path, interleaved.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/switchboard REDIS_URL=redis://127.0.0.1:6379/0 \\
      .venv/bin/python bench/push_intake.py [--rounds 40] [--sizes 1,5,20]

What ``push_frames_take`` costs the calling thread (``time.thread_time``, so
other processes on the machine hardly move it) for a burst of ``size``
events, each to its own running push subscription, new eventIds every time,
and for a burst of one heartbeat. The ORM path is the one SQLite takes (and
PostgreSQL took before ``arrivals_sql``); the runs alternate so both see
the same machine. A throwaway database; no host endpoint (rows are
``no_endpoint``, as in ``push_streams.py``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("TEST_DB_SUFFIX", f"bench_intake_{uuid.uuid4().hex[:6]}")


def seed(count: int) -> list[str]:
    from subscriptions.models import Subscription
    from subscriptions.services.common import arguments_key
    from switchboard.actors import Actor
    from switchboard.services.hosts import host_create
    from switchboard.services.servers import server_register
    from switchboard.services.users import user_upsert

    actor = Actor.system("bench")
    host, _ = host_create(name="Bench intake", actor=actor)
    user, _ = user_upsert(host=host, external_id="bench-user", actor=actor)
    server = server_register(
        host=host, name="ref", url="http://127.0.0.1:9/mcp", actor=actor, sync=False
    )
    # No grant: the intake does not look at consent (the worker holds only
    # consented streams).
    subs = Subscription.objects.bulk_create(
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
                secret_encrypted="unused",
            )
            for i in range(count)
        ]
    )
    return [s.pk for s in subs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--sizes", default="1,5,20")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    import django

    django.setup()
    from django.db import connection
    from django.test.utils import CaptureQueriesContext, setup_test_environment

    from outbox.publish import publisher
    from subscriptions.services import intake
    from subscriptions.services.push import Frame, push_frames_take

    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    publisher.send = lambda name, args: None  # the broker is not measured here
    one_statement = intake.one_statement_available
    counter = 0

    def burst(ids: list[str], kind: str) -> list[Frame]:
        nonlocal counter
        frames = []
        for sub_id in ids:
            counter += 1
            params = {"cursor": f"c{counter}"}
            if kind == "event":
                params |= {
                    "eventId": f"evt-{counter}",
                    "name": "deploy.status",
                    "timestamp": "2026-11-26T10:00:00Z",
                    "data": {"state": "rolling", "n": counter},
                }
            frames.append(Frame(sub_id, kind, params))
        return frames

    paths = {"orm": lambda: False, "two statements": one_statement}
    try:
        ids = seed(max(sizes))
        cases = [(f"{size} event{'s' if size > 1 else ''}", size, "event") for size in sizes]
        cases.append(("1 heartbeat", 1, "heartbeat"))
        cpu: dict[tuple[str, str], list[float]] = {}
        statements: dict[tuple[str, str], int] = {}
        for path, available in paths.items():
            if path != "orm" and not one_statement():
                continue
            intake.one_statement_available = available  # type: ignore[assignment]
            for label, size, kind in cases:  # warm up, and count the statements
                push_frames_take(burst(ids[:size], kind))
                with CaptureQueriesContext(connection) as captured:
                    push_frames_take(burst(ids[:size], kind))
                statements[(path, label)] = len(captured)
        for _ in range(args.rounds):
            for label, size, kind in cases:
                for path, available in paths.items():
                    if (path, label) not in statements:
                        continue
                    intake.one_statement_available = available  # type: ignore[assignment]
                    frames = burst(ids[:size], kind)
                    started = time.thread_time()
                    push_frames_take(frames)
                    cpu.setdefault((path, label), []).append((time.thread_time() - started) * 1000)
        intake.one_statement_available = one_statement  # type: ignore[assignment]
        print(
            f"Push intake — {connection.vendor}, {os.cpu_count()} CPUs, Python "
            f"{sys.version.split()[0]}, load {os.getloadavg()[0]:.2f}; "
            f"write thread CPU per burst, median (p10–p90) of {args.rounds}"
        )
        for label, _, _ in cases:
            for path in paths:
                if (path, label) not in cpu:
                    continue
                times = sorted(cpu[(path, label)])
                p10, p90 = times[len(times) // 10], times[len(times) * 9 // 10]
                print(
                    f"  {label:>12} {path:>15}: {statistics.median(times):6.2f} ms "
                    f"({p10:.2f}–{p90:.2f}), {statements[(path, label)]} statements"
                )
        print(f"load {os.getloadavg()[0]:.2f} after")
    finally:
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
