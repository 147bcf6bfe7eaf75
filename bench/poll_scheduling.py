"""Poll scheduling: what one beat tick costs as poll subscriptions pile up.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/switchboard REDIS_URL=redis://127.0.0.1:6379/0 \\
      .venv/bin/python bench/poll_scheduling.py [--rounds 7] [--total 100000] [--due 1000]

Goal (bench/README.md, *Poll scheduling*): a tick over 100,000 poll subscriptions of which 1,000 are
due costs at most 1.2x a tick over 1,000 subscriptions (all due): the cost
grows with the due work, not with the number of subscriptions.

A tick is exactly what beat runs (``subscriptions_poll_due``): the due ids
read through the ``next_poll_at`` index and locked, their due time moved on,
and one Celery task sent per row to the broker (a throwaway queue, emptied
after each round). Between rounds the same rows are made due again (not
timed). Runs on a throwaway database.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
QUEUE = f"bench-poll-{uuid.uuid4().hex[:8]}"
os.environ["CELERY_QUEUE"] = QUEUE
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def seed_rows(count: int, *, due: bool, offset: int) -> None:
    from django.utils import timezone

    from outbox.signing import webhook_secret_new
    from subscriptions.models import Subscription
    from subscriptions.services.common import arguments_key
    from switchboard.crypto import encrypt_text
    from switchboard.models import McpServer, User

    user = User.objects.get(external_id="bench-user")
    server = McpServer.objects.get(name="bench-poll")
    secret = encrypt_text(webhook_secret_new())
    now = timezone.now()
    rows = []
    for i in range(offset, offset + count):
        arguments = {"n": i}
        rows.append(
            Subscription(
                host_id=user.host_id,
                user=user,
                server=server,
                event_name="alert.fired",
                arguments=arguments,
                arguments_key=arguments_key(arguments),
                mode="poll",
                status="active",
                token=uuid.uuid4().hex,
                secret_encrypted=secret,
                cursor=str(i),
                next_poll_at=now - timedelta(seconds=1) if due else now + timedelta(hours=1),
            )
        )
    Subscription.objects.bulk_create(rows, batch_size=5000)


def make_due(ids: list[str]) -> None:
    from django.utils import timezone

    from subscriptions.models import Subscription

    Subscription.objects.filter(pk__in=ids).update(
        next_poll_at=timezone.now() - timedelta(seconds=1)
    )


def empty_queue() -> None:
    import redis
    from django.conf import settings

    redis.Redis.from_url(settings.REDIS_URL).delete(QUEUE)


def rounds(label: str, due_ids: list[str], n: int) -> list[float]:
    from subscriptions.services.poll import subscriptions_poll_due

    times = []
    for _ in range(n):
        make_due(due_ids)
        started = time.perf_counter()
        dispatched = subscriptions_poll_due()
        times.append((time.perf_counter() - started) * 1000)
        empty_queue()
        assert dispatched == len(due_ids), (label, dispatched, len(due_ids))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--total", type=int, default=100_000)
    parser.add_argument("--due", type=int, default=1000)
    args = parser.parse_args()

    import django

    django.setup()
    from django.db import connection
    from django.test.utils import setup_test_environment

    from subscriptions.models import Subscription
    from switchboard.actors import Actor
    from switchboard.models import McpServer
    from switchboard.services.hosts import host_create
    from switchboard.services.users import user_upsert

    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        actor = Actor.system("bench")
        host, _ = host_create(name="Bench poll", actor=actor)
        user_upsert(host=host, external_id="bench-user", actor=actor)
        McpServer.objects.create(
            host=host, name="bench-poll", url="https://mcp.example.test/mcp", status="active"
        )
        print(
            f"Poll scheduling — {connection.vendor}, {os.cpu_count()} CPUs, Python "
            f"{sys.version.split()[0]}, load {os.getloadavg()[0]:.2f}"
        )
        seed_rows(args.due, due=True, offset=0)
        due_ids = list(Subscription.objects.values_list("id", flat=True))
        rounds("warm-up", due_ids, 2)
        small = rounds("small", due_ids, args.rounds)

        print(f"Adding {args.total - args.due:,} poll subscriptions that are not due …", flush=True)
        seed_rows(args.total - args.due, due=False, offset=args.due)
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute("ANALYZE subscriptions_subscription")
        rounds("warm-up", due_ids, 2)
        large = rounds("large", due_ids, args.rounds)

        small_ms, large_ms = statistics.median(small), statistics.median(large)
        ratio = large_ms / small_ms
        print(f"\n{'':34} median    min     max   (ms per tick, {args.rounds} rounds)")
        print(
            f"{args.due:>7,} subscriptions, {args.due:,} due      "
            f"{small_ms:7.1f} {min(small):7.1f} {max(small):7.1f}"
        )
        print(
            f"{args.total:>7,} subscriptions, {args.due:,} due      "
            f"{large_ms:7.1f} {min(large):7.1f} {max(large):7.1f}"
        )
        print(f"\nRatio {ratio:.2f} (goal ≤ 1.2): {'met' if ratio <= 1.2 else 'MISSED'}")
    finally:
        empty_queue()
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
