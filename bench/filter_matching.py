"""Host-side filters: what matching adds to each received event.

    .venv/bin/python bench/filter_matching.py [--subscriptions 10000] [--rate 1000] [--seconds 5]

Goal (bench/README.md, *Filter matching*): 10,000 subscriptions with filters, 1,000 events/s matched
in the receiving path: p99 added <= 1 ms per event for the matching.

Every receiving path (webhook receiver, poll and push intake) calls
``subscriptions.services.filters.event_passes(subscription.filter, event)``
once per event, with the filter as stored on the subscription row. This
bench builds 10,000 different filters (exact names, ``prefix.*`` patterns,
``*``, tags, priorities, in the mixes hosts write), then paces events at
``--rate`` per second, each to a random subscription, and times that call.
Matching is set lookups: the exact names in one set, the ``prefix.``
patterns in another, one lookup per dot of the event's name; a filter is
compiled once and cached by its content. Two runs side by side: cache warm
(the steady state) and cache cleared before every event (every filter
compiled on the spot: the worst case, e.g. right after a restart).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

SOURCES = ["github", "gitlab", "slack", "jira", "pagerduty", "stripe", "linear", "sentry"]
OBJECTS = ["issue", "push", "deployment", "message", "incident", "payment", "alert", "build"]
ACTIONS = ["opened", "closed", "created", "failed", "succeeded", "updated", "fired"]
TAGS = ["ci", "deploy", "prod", "staging", "frontend", "backend", "billing", "security"]
PRIORITIES = ["low", "normal", "high", "critical"]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def random_filter(rng: random.Random) -> dict[str, list[str]]:
    patterns = []
    for _ in range(rng.randint(1, 6)):
        shape = rng.random()
        source, obj, action = rng.choice(SOURCES), rng.choice(OBJECTS), rng.choice(ACTIONS)
        if shape < 0.4:
            patterns.append(f"{source}.{obj}.{action}")
        elif shape < 0.7:
            patterns.append(f"{source}.{obj}.*")
        elif shape < 0.97:
            patterns.append(f"{source}.*")
        else:
            patterns.append("*")
    out: dict[str, list[str]] = {"event_types": patterns}
    if rng.random() < 0.5:
        out["tags"] = rng.sample(TAGS, rng.randint(1, 3))
    if rng.random() < 0.5:
        out["priority"] = rng.sample(PRIORITIES, rng.randint(1, 3))
    return out


def random_event(rng: random.Random, n: int) -> dict:
    name = f"{rng.choice(SOURCES)}.{rng.choice(OBJECTS)}.{rng.choice(ACTIONS)}"
    return {
        "eventId": f"evt-{n}",
        "name": name,
        "timestamp": "2026-11-25T10:00:00Z",
        "data": {"summary": "something happened", "n": n},
        "metadata": {
            "tags": rng.sample(TAGS, rng.randint(0, 2)),
            "priority": rng.choice(PRIORITIES),
        },
    }


def run(filters: list[dict], events: list[tuple[int, dict]], rate: float, *, cold: bool):
    from subscriptions.services import filters as matching

    timings: list[float] = []
    passed = 0
    started = time.perf_counter()
    for i, (index, event) in enumerate(events):
        delay = started + i / rate - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        if cold:
            matching._compiled.cache_clear()
        t0 = time.perf_counter()
        passed += matching.event_passes(filters[index], event)
        timings.append((time.perf_counter() - t0) * 1e6)
    return timings, passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subscriptions", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=1000)
    parser.add_argument("--seconds", type=float, default=5)
    args = parser.parse_args()

    import django

    django.setup()
    from subscriptions.services.filters import filter_parse

    rng = random.Random(13)
    # As stored on the rows: checked and normalised by the same code as the API.
    filters = [filter_parse(random_filter(rng)) for _ in range(args.subscriptions)]
    count = int(args.rate * args.seconds)
    events = [(rng.randrange(len(filters)), random_event(rng, n)) for n in range(count)]
    print(
        f"Filter matching — {args.subscriptions} subscriptions, {count} events at "
        f"{args.rate:g}/s, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
    )
    worst = 0.0
    for label, cold in (("cache warm", False), ("compiled every time", True)):
        run(filters, events[: min(2000, count)], 1e9, cold=cold)  # warm the interpreter
        timings, passed = run(filters, events, args.rate, cold=cold)
        p99 = pct(timings, 99)
        worst = max(worst, p99)
        print(
            f"  {label:<20} p50 {statistics.median(timings):6.1f} µs, p99 {p99:6.1f} µs, "
            f"max {max(timings):7.1f} µs; {passed / len(timings):.0%} of events pass"
        )
    print(f"  goal p99 ≤ 1 ms added per event: {'met' if worst <= 1000 else 'MISSED'}")


if __name__ == "__main__":
    main()
