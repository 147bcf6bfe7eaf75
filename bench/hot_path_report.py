"""The goals of bench/hot_path.py (bench/README.md, *Hot path*) checked
against a run's figures, and the printed report."""

from __future__ import annotations

from hot_path_calls import SERVERS, TARGETS

GOAL_1 = {"p50": 1.5, "p99": 2.0}  # × the bare view
GOAL_4 = {"lifecycle-5": 8.0, "lifecycle-0": 4.0}  # p99, ms
# Throughput at --concurrency over one daphne's, on the API's light calls
# and the webhook receiver.
GOAL_SCALE = 3.0
LIGHT = ("user", "lifecycle-0", "receiver")


def goals(seq, rates, bursts, recommended: str) -> list[dict]:
    out = []
    for server in SERVERS:
        if server != "daphne":
            scales = {t: rates[server, t]["rps"] / rates["daphne", t]["rps"] for t in LIGHT}
            out.append(
                {
                    "goal": "3×",
                    "server": server,
                    "met": all(x >= GOAL_SCALE for x in scales.values()),
                    "text": "req/s over one daphne's: "
                    + ", ".join(f"{t} {x:.2f}×" for t, x in scales.items())
                    + f" (≥ {GOAL_SCALE:g}×)",
                }
            )
        bare, user = seq[server, "bare"].summary(), seq[server, "user"].summary()
        ratio50, ratio99 = user["p50"] / bare["p50"], user["p99"] / bare["p99"]
        out.append(
            {
                "goal": 1,
                "server": server,
                "met": ratio50 <= GOAL_1["p50"] and ratio99 <= GOAL_1["p99"],
                "text": f"GET /users/{{id}} p50 {user['p50']:.2f} ms = {ratio50:.2f}× bare "
                f"{bare['p50']:.2f} (≤ {GOAL_1['p50']}×), p99 {user['p99']:.2f} ms = "
                f"{ratio99:.2f}× bare {bare['p99']:.2f} (≤ {GOAL_1['p99']}×)",
            }
        )
        for target, limit in GOAL_4.items():
            row = seq[server, target].summary()
            out.append(
                {
                    "goal": 4,
                    "server": server,
                    "met": row["p99"] <= limit and not row["problems"],
                    "text": f"{target}: p99 {row['p99']:.2f} ms over HTTP (≤ {limit:g}); "
                    f"in Django p99 {row['django_p99']:.2f} ms",
                }
            )
        if server in bursts:
            b = bursts[server]
            complete = (
                b["timeline_user"] == b["timeline_staff"] == b["events"] == b["requested"]
                and b["ledger_user_seen"] == b["ledger_user"]
                and b["ledger_staff_seen"] == b["ledger_staff"]
            )
            out.append(
                {
                    "goal": 6,
                    "server": server,
                    "met": complete and b["broadcast_errors"] == 0 and not b["problems"],
                    "text": f"burst of {b['events']}: timeline {b['timeline_user']}/{b['events']} "
                    f"(user), {b['timeline_staff']}/{b['events']} (staff); ledger "
                    f"{b['ledger_user_seen']}/{b['ledger_user']} (user), "
                    f"{b['ledger_staff_seen']}/{b['ledger_staff']} (staff); "
                    f"{b['broadcast_errors']} broadcast errors logged",
                }
            )
    return out


ASGI = ("daphne", "uvicorn", "granian-asgi")
PROJECT = (*ASGI, "gunicorn", "granian-wsgi")
KINDS_OF_TRAFFIC = {
    # kind: (the targets that stand for it, the servings that can serve it)
    "API (user, lifecycle-0, lifecycle-5)": (("user", "lifecycle-0", "lifecycle-5"), PROJECT),
    "pages (the sync bare view)": (("bare",), PROJECT),
    "webhook receiver": (("receiver",), PROJECT),
    # WSGI has no WebSockets: the ASGI servings' API figures, for the socket process.
    "websockets (ASGI only; API figures)": (("user", "lifecycle-0", "lifecycle-5"), ASGI),
}


def fastest(throughput: dict, targets, names) -> list[tuple[str, float]]:
    """The servings by their geometric mean req/s over ``targets``, fastest first."""
    means = {}
    for name in names:
        product = 1.0
        for target in targets:
            product *= max(throughput[f"{name}/{target}"]["rps"], 1e-9)
        means[name] = product ** (1 / len(targets))
    return sorted(means.items(), key=lambda item: -item[1])


def report(results: dict) -> None:
    setup = results["setup"]
    print(
        f"\nHot path — {setup['cpus']} CPUs, Python {setup['python']}; load average "
        f"{results['load_start']} at the start, {results['load_end']} at the end "
        f"({results['finished']})"
    )
    for name, label in setup["servings"].items():
        mark = "  (recommended)" if name == setup["recommended"] else ""
        print(f"  {name:<13}{label}{mark}")
    print(
        f"\nSequential, one call at a time ({results['samples']} per target), ms; "
        "'django' = Server-Timing"
    )
    print(
        f"  {'serving':<13}{'target':<12}{'p50':>7}{'p90':>7}{'p99':>7}{'max':>8}"
        f"{'django p50':>12}{'django p99':>12}{'req/s@' + str(results['concurrency']):>11}"
        f"{'p50':>7}{'p99':>7}"
    )
    for server in SERVERS:
        for target in TARGETS:
            s = results["sequential"][f"{server}/{target}"]
            t = results["throughput"][f"{server}/{target}"]
            print(
                f"  {server:<13}{target:<12}{s['p50']:7.2f}{s['p90']:7.2f}{s['p99']:7.2f}"
                f"{s['max']:8.1f}{s['django_p50']:12.2f}{s['django_p99']:12.2f}"
                f"{t['rps']:11.0f}{t['p50']:7.1f}{t['p99']:7.1f}"
                + (f"  {s['problems']} wrong: {s['first_problem']}" if s["problems"] else "")
            )
    if results["burst"]:
        print(f"\nBurst: {results['burst_size']} lifecycle events with 5 injections each")
        for server, b in results["burst"].items():
            after = b["last_update_after_s"]
            print(
                f"  {server:<13}{b['events']} events in {b['seconds']:.1f} s; "
                f"{b['messages_user']} + {b['messages_staff']} socket messages; last update "
                f"{'—' if after is None else f'{after:.2f} s'} after the last answer; "
                f"{b['tracebacks']} tracebacks logged; {b['records_pending']} events' records "
                "still unwritten at the end"
            )
    print(f"\nFastest per kind of traffic (req/s at {results['concurrency']}, geometric mean)")
    for kind, (targets, names) in KINDS_OF_TRAFFIC.items():
        ranked = fastest(results["throughput"], targets, names)
        print(f"  {kind:<38}" + ", ".join(f"{name} {rps:.0f}" for name, rps in ranked))
    print(f"\nGoals (judged under the recommended serving, {setup['recommended']}; * below)")
    for goal in results["goals"]:
        mark = "*" if goal["server"] == setup["recommended"] else " "
        print(
            f"  {goal['goal']:<3}{mark}{goal['server']:<13}"
            f"{'met' if goal['met'] else 'MISSED':<7}{goal['text']}"
        )
