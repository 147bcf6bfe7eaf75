"""Ledger appends: entries per second for ONE host with 1, 4 and 16
concurrent writers, three ways, interleaved in one run:

- ``plain``: the same INSERT of an entry, no integrity work (no lock, no
  hashes);
- ``chain``: ``audit_record`` as before the transparency log (the host's
  chain head locked, content and chain hashes);
- ``chain+tree``: ``audit_record`` now (plus the Merkle leaf: the entry's
  ``leaf_index``, the head's compact range, the leaf record).

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/switchboard REDIS_URL=redis://127.0.0.1:6379/0 \\
      .venv/bin/python bench/ledger_append.py [--seconds 3] [--writers 1,4,16]

Each writer is a thread with its own database connection; each append is
its own transaction, as ``audit_record`` runs. A throwaway database. The
ratios printed are each way's rate over ``plain`` at the same writer count,
and each way's 16-writer rate over its 1-writer rate.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("TEST_DB_SUFFIX", f"bench_ledger_{uuid.uuid4().hex[:6]}")


def _append_plain(host_id: str, n: int) -> None:
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


def _rate(append, host_id: str, writers: int, seconds: float) -> float:
    from django.db import connection

    counts = [0] * writers
    start = threading.Barrier(writers + 1)
    stop_at: list[float] = []

    def run(slot: int) -> None:
        start.wait()
        n = 0
        while time.monotonic() < stop_at[0]:
            append(host_id, n)
            n += 1
        counts[slot] = n
        connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(writers)]
    for thread in threads:
        thread.start()
    began = time.monotonic()
    stop_at.append(began + seconds)
    start.wait()
    for thread in threads:
        thread.join()
    return sum(counts) / (time.monotonic() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--writers", default="1,4,16")
    args = parser.parse_args()
    counts = [int(item) for item in args.writers.split(",")]

    import django

    django.setup()
    from django.db import connection
    from django.test.utils import setup_test_environment

    from switchboard.actors import Actor
    from switchboard.services import ledger_chain
    from switchboard.services.hosts import host_create

    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    tree_append, tree_leaf_record = ledger_chain.tree_append, ledger_chain.tree_leaf_record

    def chain_only(host_id: str, n: int) -> None:
        _append_recorded(host_id, n)

    ways = {"plain": _append_plain, "chain": chain_only, "chain+tree": _append_recorded}
    rates: dict[tuple[str, int], float] = {}
    try:
        for writers in counts:
            for way, append in ways.items():
                host, _ = host_create(name=f"bench {way} {writers}", actor=Actor.system("bench"))
                if way == "chain":
                    # As before the tree: the same append without its leaf.
                    ledger_chain.tree_append = lambda head, entry: None  # type: ignore[assignment]
                    ledger_chain.tree_leaf_record = lambda entry: None  # type: ignore[assignment]
                try:
                    rates[way, writers] = _rate(append, host.id, writers, args.seconds)
                finally:
                    ledger_chain.tree_append = tree_append
                    ledger_chain.tree_leaf_record = tree_leaf_record
                connection.close()
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)

    print(f"{'writers':>8} " + " ".join(f"{way:>12}" for way in ways) + "   vs plain")
    for writers in counts:
        cells = " ".join(f"{rates[way, writers]:>10.0f}/s" for way in ways)
        ratios = ", ".join(
            f"{way} {rates[way, writers] / rates['plain', writers]:.2f}" for way in list(ways)[1:]
        )
        print(f"{writers:>8} {cells}   {ratios}")
    if len(counts) > 1:
        first, last = counts[0], counts[-1]
        scaling = ", ".join(f"{way} {rates[way, last] / rates[way, first]:.2f}x" for way in ways)
        print(f"{last} writers over {first}: {scaling}")


if __name__ == "__main__":
    main()
