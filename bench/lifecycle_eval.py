"""Benchmark: lifecycle evaluation for 50 servers x 20 declarations.

    .venv/bin/python bench/lifecycle_eval.py              # the engine (the goal: p99 < 5 ms)
    .venv/bin/python bench/lifecycle_eval.py --service    # also the whole service call, on a
                                                          # throwaway database (DATABASE_URL)
    .venv/bin/python bench/lifecycle_eval.py --profile    # cProfile of the engine run

Static context only (no ``context_tool``), every declaration approved (the
worst case: everything that matches goes on to flood control), a mix of the
six events with tool names and inputs drawn at random. "Engine" is one call's
pure work: normalizing the event (serializing and capping tool input/output)
and ``evaluate`` over the precompiled hooks of the session's 50 servers.
"Service" is ``lifecycle_event_handle`` end to end, called the way daphne
calls a sync view (a worker thread under an event loop): claims, bulk
loads, evaluation, and the records a firing needs (event row, firings,
ledger entries, live broadcast over Redis).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SERVERS = 50
DECLARATIONS = 20
TOOLS = ["Bash", "Edit", "Read", "Write", "Grep", "Glob", "WebFetch", "Task"]
COMMANDS = ["git commit -m 'wip'", "git push", "pytest -q", "ls -la", "make test", "npm run build"]
OTHER_EVENTS = ["session_start", "session_end", "pre_request", "post_request"]


def declarations_for(index: int, rng: random.Random) -> list[dict]:
    """20 declarations: 12 on tool use with assorted matchers, 8 on the rest."""
    out: list[dict] = []
    for j in range(12):
        event = "post_tool_use" if j < 8 else "pre_tool_use"
        kind = j % 6
        matcher: dict[str, str] = {}
        if kind == 0:
            matcher = {
                "tool_name": "Bash",
                "input_contains": rng.choice(COMMANDS).split()[0]
                + " "
                + rng.choice(COMMANDS).split()[-1],
            }
        elif kind == 1:
            matcher = {"tool_name": rng.choice(TOOLS)}
        elif kind == 2:
            matcher = {"tool_name": f"mcp__srv{index}__*"}
        elif kind == 3:
            matcher = {"tool_name": "*", "tool_server": f"srv-{(index + 1) % SERVERS}"}
        elif kind == 4:
            matcher = {"input_contains": rng.choice(["git", "test", "secret", "deploy"])}
        out.append(
            {
                "event": event,
                **({"matcher": matcher} if matcher else {}),
                "context": f"Server {index} hook {j}: after {{tool_name}} in {{project_name}}, "
                "consider recording what you learned. " + "x" * rng.randint(20, 120),
                "priority": rng.choice(["suggestion", "suggestion", "important", "required"]),
            }
        )
    for j in range(8):
        out.append(
            {
                "event": OTHER_EVENTS[j % 4],
                "context": f"Server {index} lifecycle note {j} for {{project_name}} ({{session_id}}).",
                "priority": rng.choice(["suggestion", "important"]),
            }
        )
    return out


def random_event(rng: random.Random) -> dict:
    if rng.random() < 0.7:
        tool = rng.choice(TOOLS + [f"mcp__srv{rng.randrange(SERVERS)}__search"])
        return {
            "event": rng.choice(["pre_tool_use", "post_tool_use"]),
            "tool_name": tool,
            "tool_input": {"command": rng.choice(COMMANDS), "cwd": "/work/project", "timeout": 120},
            "tool_output": {"content": [{"type": "text", "text": "ok " * rng.randint(1, 200)}]},
            "tool_server": f"srv-{rng.randrange(SERVERS)}",
        }
    return {"event": rng.choice(OTHER_EVENTS)}


def percentiles(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)
    q = statistics.quantiles(ordered, n=100, method="inclusive")
    return {
        "p50": q[49] / 1e6,
        "p90": q[89] / 1e6,
        "p99": q[98] / 1e6,
        "max": ordered[-1] / 1e6,
        "mean": statistics.fmean(ordered) / 1e6,
    }


def report(title: str, samples: dict[str, list[int]]) -> dict[str, float]:
    everything = [s for values in samples.values() for s in values]
    print(f"\n{title} ({len(everything)} calls)")
    print(f"  {'event':<16}{'calls':>7}{'p50 ms':>10}{'p90 ms':>10}{'p99 ms':>10}{'max ms':>10}")
    for name in sorted(samples):
        stats = percentiles(samples[name])
        print(
            f"  {name:<16}{len(samples[name]):>7}{stats['p50']:>10.3f}{stats['p90']:>10.3f}{stats['p99']:>10.3f}{stats['max']:>10.3f}"
        )
    overall = percentiles(everything)
    print(
        f"  {'all':<16}{len(everything):>7}{overall['p50']:>10.3f}{overall['p90']:>10.3f}{overall['p99']:>10.3f}{overall['max']:>10.3f}"
    )
    return overall


# --- the engine ------------------------------------------------------------------------


def bench_engine(calls: int, seed: int, profile: bool) -> dict[str, float]:
    from hooks import engine

    rng = random.Random(seed)
    servers = []
    approved = {}
    for i in range(SERVERS):
        sid = f"srv-{i}"
        rows = [(f"{sid}:{j:016x}", raw, True) for j, raw in enumerate(declarations_for(i, rng))]
        servers.append(
            engine.compile_server(
                server_id=sid,
                name=f"server {i}",
                trusted=i % 3 == 0,
                priority=100 + i % 7,
                declarations=rows,
            )
        )
        approved[sid] = frozenset(hook_id for hook_id, _, _ in rows)
    permissions = engine.Permissions(approved=approved, approved_as_required=approved)
    limits = engine.Limits()
    now = 1_000_000.0
    state = engine.FloodState(
        last_fired={
            f"srv-{i}:{j:016x}": now - rng.uniform(0, 120)
            for i in range(0, SERVERS, 5)
            for j in range(5)
        },
        recent=[now - rng.uniform(0, 60) for _ in range(10)],
    )
    events = [random_event(rng) for _ in range(calls)]

    def one(raw: dict) -> engine.Result:
        facts, _ = engine.event_facts(
            session_id="bench-session",
            project_name="bench",
            tool_servers=[raw["tool_server"]] if "tool_server" in raw else (),
            **{k: v for k, v in raw.items() if k != "tool_server"},
        )
        return engine.evaluate(servers, facts, permissions, state, limits, now)

    for raw in events[:200]:  # warm up
        one(raw)
    samples: dict[str, list[int]] = {}
    cpu: dict[str, list[int]] = {}
    fired = suppressed = 0
    for raw in events:
        started, started_cpu = time.perf_counter_ns(), time.thread_time_ns()
        result = one(raw)
        cpu.setdefault(raw["event"], []).append(time.thread_time_ns() - started_cpu)
        samples.setdefault(raw["event"], []).append(time.perf_counter_ns() - started)
        fired += len(result.fired)
        suppressed += len(result.suppressed)
    overall = report(
        f"Engine: {SERVERS} servers x {DECLARATIONS} declarations, static context, wall clock",
        samples,
    )
    # CPU time of the calling thread: what the call costs, without the time
    # the machine spent on other processes (the wall-clock tail on a busy box).
    cpu_overall = report("Engine, CPU time of the call", cpu)
    overall["cpu_p99"] = cpu_overall["p99"]
    print(
        f"  on average {fired / calls:.2f} injections and {suppressed / calls:.2f} suppressions per call"
    )
    if profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        for raw in events:
            one(raw)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(15)
    return overall


# --- the service -------------------------------------------------------------------


def bench_service(calls: int, seed: int, approve_fraction: float) -> dict[str, float]:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("ALLOW_PRIVATE_TARGETS", "1")
    os.environ.setdefault("TEST_DB_SUFFIX", f"bench{os.getpid()}")
    os.environ.setdefault("HOOK_COOLDOWN", "0")  # measure evaluation, not cooldowns
    os.environ.setdefault("HOOK_SESSION_RATE_LIMIT", "1000000")
    import django

    django.setup()
    from django.db import connection

    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        # Like daphne runs a sync view: in a worker thread under one event
        # loop, so the live broadcasts reuse that loop's Redis connections.
        import asyncio

        from asgiref.sync import sync_to_async

        def in_worker() -> dict[str, float]:
            try:
                return _service_run(calls, seed, approve_fraction)
            finally:
                connection.close()  # this thread's own connection

        async def under_a_loop() -> dict[str, float]:
            return await sync_to_async(in_worker)()

        return asyncio.run(under_a_loop())
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def _service_run(calls: int, seed: int, approve_fraction: float) -> dict[str, float]:
    from consent.services import grant_approve, grant_request
    from hooks.models import HookFiring
    from hooks.services import LifecycleInput, lifecycle_event_handle
    from switchboard.actors import Actor
    from switchboard.mcp import parse_declarations
    from switchboard.models import McpServer
    from switchboard.services.hosts import host_create
    from switchboard.services.server_discovery import ServerSnapshot
    from switchboard.services.server_sync import server_apply_snapshot
    from switchboard.services.users import user_upsert

    rng = random.Random(seed)
    actor = Actor.system("bench")
    host, _ = host_create(name="Bench", actor=actor)
    user, _ = user_upsert(host=host, external_id="bench-user", actor=actor)
    server_ids = []
    for i in range(SERVERS):
        server = McpServer.objects.create(
            host=host,
            name=f"srv-{i}",
            status="host_managed",
            trust="trusted" if i % 3 == 0 else "untrusted",
        )
        raws = declarations_for(i, rng)
        snapshot = ServerSnapshot(
            capabilities={"hooks": {"declarations": raws}},
            sources={"hooks": "toplevel"},
            declarations=parse_declarations(server_id=server.id, raw_list=raws),
        )
        server_apply_snapshot(server=server, snapshot=snapshot, actor=actor)
        grant = grant_request(user=user, server=server, scope="hooks", actor=actor)
        hook_ids = list(server.hook_declarations.values_list("hook_id", flat=True))
        approved = [h for h in hook_ids if rng.random() < approve_fraction]
        grant_approve(grant=grant, actor=actor, hook_ids=approved)
        server_ids.append(server.id)
    events = [random_event(rng) for _ in range(calls)]
    first = True
    samples: dict[str, list[int]] = {}
    for n, raw in enumerate(events):
        data = LifecycleInput(
            session_id=f"bench-{n % 20}",
            user="bench-user",
            servers=server_ids if first or n < 20 else None,
            project_name="bench",
            **raw,
        )
        started = time.perf_counter_ns()
        lifecycle_event_handle(host=host, actor=actor, data=data)
        elapsed = time.perf_counter_ns() - started
        if n >= 40:  # the first call of each session claims it and warms the cache
            samples.setdefault(raw["event"], []).append(elapsed)
        first = False
    fired = HookFiring.objects.count()
    overall = report(
        f"Service: lifecycle_event_handle end to end, {approve_fraction:.0%} of hooks approved",
        samples,
    )
    print(f"  on average {fired / len(events):.2f} injections per call")
    return overall


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--service-calls", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2282)
    parser.add_argument("--service", action="store_true")
    parser.add_argument(
        "--approve",
        type=float,
        action="append",
        help="fraction of hooks the user approved, per service run (default: 1.0 and 0.02)",
    )
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    overall = bench_engine(args.calls, args.seed, args.profile)
    verdict = "met" if overall["p99"] < 5 else "MISSED"
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"\nGoal p99 < 5 ms for the engine: {verdict} (wall-clock p99 {overall['p99']:.3f} ms, "
        f"CPU-time p99 {overall['cpu_p99']:.3f} ms; load average {load} on {os.cpu_count()} CPUs)"
    )
    if args.service:
        for fraction in args.approve or [1.0, 0.02]:
            bench_service(args.service_calls, args.seed, fraction)


if __name__ == "__main__":
    main()
