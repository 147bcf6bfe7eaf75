"""The timed phases of bench/hot_path.py: sequential latency (one call at a
time per target) and throughput (closed loops of concurrent connections)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import time
from dataclasses import dataclass, field

from hot_path_calls import FRESH, SERVERS, TARGETS, Calls, server_ms
from stack import Answer, Http, pct


@dataclass
class Series:
    latencies: list[float] = field(default_factory=list)  # ms, as the client saw them
    in_django: list[float] = field(default_factory=list)  # ms, Server-Timing
    problems: list[str] = field(default_factory=list)
    requests: int = 0
    seconds: float = 0.0

    def summary(self) -> dict:
        return {
            "n": len(self.latencies),
            "p50": pct(self.latencies, 50),
            "p90": pct(self.latencies, 90),
            "p99": pct(self.latencies, 99),
            "max": max(self.latencies, default=float("nan")),
            "django_p50": pct(self.in_django, 50),
            "django_p99": pct(self.in_django, 99),
            "problems": len(self.problems),
            "first_problem": self.problems[0] if self.problems else None,
        }


@contextlib.contextmanager
def collector_paused():
    """No garbage collection in the client while it times (a pause of the
    client would count as server latency)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def timed(conn: Http, raw: bytes, target: str, series: Series, keep: bool) -> Answer:
    started = time.perf_counter()
    answer = await conn.send(raw)
    elapsed = (time.perf_counter() - started) * 1000
    if keep:
        series.latencies.append(elapsed)
        if (ms := server_ms(answer)) is not None:
            series.in_django.append(ms)
        if (problem := Calls.check(target, answer)) is not None:
            series.problems.append(problem)
    return answer


async def sequential(ports, calls, samples: int, warmup: int) -> dict[tuple[str, str], Series]:
    keys = [(server, target) for server in SERVERS for target in TARGETS]
    conns = {key: await Http.open(ports[key[0]]) for key in keys}
    series = {key: Series() for key in keys}
    rng = random.Random(14)
    try:
        with collector_paused():
            for round_no in range(warmup + samples):
                rng.shuffle(keys)
                for server, target in keys:
                    raw = calls[server].raw(target, session=f"seq-{server}-{target}")
                    # Warm-up (caches, pools, the session's claim) is not
                    # timed, but its first answer must already be right.
                    answer = await timed(
                        conns[server, target], raw, target, series[server, target],
                        keep=round_no >= warmup,
                    )  # fmt: skip
                    if round_no == 0 and (problem := Calls.check(target, answer)):
                        raise SystemExit(f"{server} {target}: {problem}")
    finally:
        for conn in conns.values():
            conn.close()
    return series


async def closed_loop(
    port: int, calls: Calls, target: str, tag: str, concurrency: int, duration: float
) -> Series:
    conns = [await Http.open(port) for _ in range(concurrency)]
    raws = [calls.raw(target, session=f"tput-{tag}-{target}-{i}") for i in range(concurrency)]
    for conn, raw in zip(conns, raws, strict=True):  # each session's claim, untimed
        await conn.send(raw)
    series = Series()

    async def drive(conn: Http, raw: bytes, deadline: float) -> None:
        while True:  # at least one call each, however slow the machine
            if target in FRESH:
                raw = calls.raw(target)
            await timed(conn, raw, target, series, True)
            if time.perf_counter() >= deadline:
                return

    with collector_paused():
        started = time.perf_counter()
        deadline = started + duration
        await asyncio.gather(*(drive(c, r, deadline) for c, r in zip(conns, raws, strict=True)))
        series.seconds = time.perf_counter() - started
    series.requests = len(series.latencies)
    for conn in conns:
        conn.close()
    return series


async def throughput(ports, calls, args) -> dict[tuple[str, str], list[Series]]:
    keys = [(server, target) for target in TARGETS for server in SERVERS]
    runs: dict[tuple[str, str], list[Series]] = {key: [] for key in keys}
    for round_no in range(args.rounds):
        for server, target in keys if round_no % 2 == 0 else reversed(keys):
            run = await closed_loop(
                ports[server],
                calls[server],
                target,
                f"{server}{round_no}",
                args.concurrency,
                args.duration,
            )
            runs[server, target].append(run)
            print(
                f"  round {round_no + 1} {server:>12} {target:<12}"
                f"{run.requests / run.seconds:8.0f} req/s  p50 {pct(run.latencies, 50):6.1f} ms"
                f"  p99 {pct(run.latencies, 99):6.1f} ms",
                flush=True,
            )
    return runs
