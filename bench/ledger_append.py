"""Ledger appends: entries per second for ONE host with 1, 4 and 16
concurrent writers, four (or five) ways, interleaved in one run:

- ``insert``: the bare INSERT of an entry (no integrity work, no feeds);
- ``plain``: ``audit_record`` with its integrity work taken out (the same
  scrubbing, digests, insert, metrics and live feeds; no lock, no hashes,
  no tree): "the same inserts without integrity work", what the goal is
  measured against;
- ``before``: ``audit_record`` with the append as it was before the append
  was made lean (``bench/ledger_append_before.py``: the ORM reads and
  writes of the first transparency log, one after the other under the
  host's lock);
- ``now``: ``audit_record`` as it is;
- ``combined`` (with ``--combined``): ``audit_record`` with a batching
  append that is not the product's (``bench/ledger_append_combined.py``),
  to see whether batching one host's appends would pay.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/switchboard REDIS_URL=redis://127.0.0.1:6379/0 \\
      .venv/bin/python bench/ledger_append.py [--seconds 3] [--writers 1,4,16] [--repeat 5] [--combined] [--threads]

Each writer is a process of its own with its own database connection, as
the writers of a deployment are (web workers, Celery's prefork workers);
``--threads`` runs them as threads of one process instead, where Python's
GIL, not the ledger, sets the pace. Each append is its own transaction, as
``audit_record`` runs. A throwaway database. Printed: each way's rate, its
ratio over ``plain`` at the same writer count, and each way's 16-writer
rate over its 1-writer rate; then the goal, met or MISSED.

``--repeat N`` measures every cell N times, the rounds one after the other
(so a quiet or busy minute of the machine falls on every way alike), prints
each round's goal ratios and judges the goal on their median: one run of
3 s cells varies by several points from the next, and a verdict that flips
between runs says nothing. Within a round ``plain`` and ``now`` run last
and back to back, in alternating order.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("TEST_DB_SUFFIX", f"bench_ledger_{uuid.uuid4().hex[:6]}")

WAYS = ("insert", "plain", "before", "now")
GOAL_SHARE = 0.8  # 16 writers within 80 % of plain …
GOAL_SCALING = 5.0  # … or 5x one writer


def _append_insert(host_id: str, n: int) -> None:
    from django.db import transaction
    from django.utils import timezone

    from switchboard.models import AuditEntry

    with transaction.atomic():
        AuditEntry(
            host_id=host_id,
            at=timezone.now(),
            kind="bench.append",
            actor_kind="system",
            summary=f"append {n}",
            detail={"n": n},
        ).save(force_insert=True)


def _append_recorded(host_id: str, n: int) -> None:
    from switchboard.actors import Actor
    from switchboard.services.audit import audit_record

    audit_record(
        host_id=host_id,
        kind="bench.append",
        actor=Actor.system("bench"),
        summary=f"append {n}",
        detail={"n": n},
    )


def _use_append(way: str) -> None:
    """Put the append of ``way`` in ``audit_record``'s hands (in this
    process: each writer process calls it before it starts)."""
    from django.db import transaction

    from bench import ledger_append_before, ledger_append_combined
    from switchboard.services import audit, ledger_chain

    def before(entry):
        # ``audit_record`` then wrapped the append in a transaction of its own.
        with transaction.atomic():
            return ledger_append_before.ledger_append(entry)

    appends: dict[str, Callable] = {
        "plain": lambda entry: entry.save(force_insert=True),
        "before": before,
        "now": ledger_chain.ledger_append,
        "combined": ledger_append_combined.ledger_append,
    }
    if way in appends:
        audit.ledger_append = appends[way]  # type: ignore[assignment]


def _writer(way: str, host_id: str, start, seconds: float, out) -> None:
    from django.db import connection

    _use_append(way)
    append = _append_insert if way == "insert" else _append_recorded
    connection.close()  # a connection of its own, not the parent's
    append(host_id, -1)  # connected and warm before the clock starts
    start.wait()  # every writer warm: the clock starts together
    stop_at = time.monotonic() + seconds
    n = 0
    while time.monotonic() < stop_at:
        append(host_id, n)
        n += 1
    connection.close()
    out.put(n)


def _rate(way: str, host_id: str, writers: int, seconds: float, threads: bool) -> float:
    from django.db import connection

    # Never shared with a forked writer: no open connection, and no pool
    # (psycopg's pool keeps threads and sockets a child cannot use).
    connection.close()
    if hasattr(connection, "close_pool"):
        connection.close_pool()
    if threads:
        import queue

        out: queue.Queue[int] = queue.Queue()
        start = threading.Barrier(writers)
        _use_append(way)
        runners = [
            threading.Thread(target=_writer, args=(way, host_id, start, seconds, out))
            for _ in range(writers)
        ]
    else:
        context = multiprocessing.get_context("fork")
        out = context.Queue()
        start = context.Barrier(writers)
        runners = [
            context.Process(target=_writer, args=(way, host_id, start, seconds, out))
            for _ in range(writers)
        ]
    for runner in runners:
        runner.start()
    total = sum(out.get(timeout=seconds + 60) for _ in runners)
    for runner in runners:
        runner.join()
    _use_append("now")
    return total / seconds


def _in_round_order(ways: tuple[str, ...], round_no: int) -> list[str]:
    """The ways of one round: ``plain`` and ``now``, the pair the goal
    compares, last and back to back, the one that goes first alternating
    from round to round. On a machine whose speed drifts within seconds (a
    shared virtual machine) a cell run between them, or always the same one
    first, would tilt their ratio."""
    pair = ["plain", "now"] if round_no % 2 == 0 else ["now", "plain"]
    return [*(way for way in ways if way not in pair), *pair]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--writers", default="1,4,16")
    parser.add_argument("--repeat", type=int, default=1, help="rounds; the goal on their median")
    parser.add_argument(
        "--combined", action="store_true", help="also the batching shape of ledger_append_combined"
    )
    parser.add_argument("--threads", action="store_true", help="writers as threads of one process")
    args = parser.parse_args()
    counts = [int(item) for item in args.writers.split(",")]

    import django

    django.setup()
    from django.db import connection
    from django.test.utils import setup_test_environment

    from switchboard.actors import Actor
    from switchboard.services.hosts import host_create

    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    if args.combined:
        from bench import ledger_append_combined

        ledger_append_combined.create_tables()
    from switchboard.services.ledger_chain import Verification, ledger_verify

    ways = (*WAYS, "combined") if args.combined else WAYS
    # The ways with integrity work, each compared with plain.
    ledger_ways = [way for way in ways if way not in ("insert", "plain")]
    rounds: list[dict[tuple[str, int], float]] = []
    verified: list[tuple[str, Verification]] = []
    try:
        for round_no in range(args.repeat):
            rates: dict[tuple[str, int], float] = {}
            for writers in counts:
                for way in _in_round_order(ways, round_no):
                    host, _ = host_create(
                        name=f"bench {way} {writers} {round_no}", actor=Actor.system("bench")
                    )
                    rates[way, writers] = _rate(way, host.id, writers, args.seconds, args.threads)
                    if way in ledger_ways:
                        # What the writers appended side by side is one chain and tree.
                        result = ledger_verify(host_id=host.id)
                        verified.append((f"{way}/{writers}", result))
            rounds.append(rates)
    finally:
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)

    model = "threads of one process" if args.threads else "processes"
    print(f"writers as {model}, {args.seconds:g} s a cell, load average {os.getloadavg()[0]:.2f}")
    if len(rounds) > 1:
        print(f"{len(rounds)} rounds; each cell below is the median of its rounds")
    # The table and the goal on each cell's median over the rounds.
    rates = {cell: statistics.median(found[cell] for found in rounds) for cell in rounds[0]}
    print(f"{'writers':>8} " + " ".join(f"{way:>10}" for way in ways) + "   over plain")
    for writers in counts:
        cells = " ".join(f"{rates[way, writers]:>8.0f}/s" for way in ways)
        ratios = ", ".join(
            f"{way} {rates[way, writers] / rates['plain', writers]:.2f}" for way in ledger_ways
        )
        print(f"{writers:>8} {cells}   {ratios}")
    broken = [f"{cell} BROKEN {result.first_broken}" for cell, result in verified if not result.ok]
    checked = sum(result.checked for _, result in verified)
    print(
        f"ledger_verify: {len(verified)} cells of {', '.join(ledger_ways)}, {checked} entries: "
        + ("; ".join(broken) if broken else "every chain and tree verifies")
    )
    first, last = counts[0], counts[-1]
    if last == first:
        return
    scaling = ", ".join(f"{way} {rates[way, last] / rates[way, first]:.2f}x" for way in ways)
    print(f"{last} writers over {first}: {scaling}")
    # Each round's ratios are taken within the round (its ways side by side);
    # the verdict is on their median.
    shares = [found["now", last] / found["plain", last] for found in rounds]
    scalings = [found["now", last] / found["now", first] for found in rounds]
    if len(rounds) > 1:
        print(
            f"{last} writers, now over plain by round: "
            + ", ".join(f"{share:.0%}" for share in shares)
        )
    share, scaled = statistics.median(shares), statistics.median(scalings)
    met = share >= GOAL_SHARE or scaled >= GOAL_SCALING
    median = "median " if len(rounds) > 1 else ""
    print(
        f"goal ({last} writers within {GOAL_SHARE:.0%} of plain, or {GOAL_SCALING:g}x one writer): "
        f"{median}{share:.0%} of plain, {median}{scaled:.2f}x one writer: "
        f"{'met' if met else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
