"""bench/load.py's verdict: the processes' memory (RSS and its trend), the
run's figures summed up against its limits into failures, and the report
printed at the end."""

from __future__ import annotations

import contextlib
import os
import statistics
import time

from stack import load_average, pct

CHECKED = ("web", "worker", "beat", "sessions")  # the processes whose memory must stay flat


def rss_mb(pid: int, children: bool = True) -> float:
    """A process's RSS with its children's (Celery's pool), in MB."""
    import psutil

    try:
        process = psutil.Process(pid)
        total = process.memory_info().rss
        for child in process.children(recursive=True) if children else []:
            with contextlib.suppress(psutil.NoSuchProcess):
                total += child.memory_info().rss
    except psutil.NoSuchProcess:
        return float("nan")
    return total / 2**20


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (t, y), per unit of t."""
    if len(points) < 2:
        return 0.0
    mean_t = statistics.fmean(t for t, _ in points)
    mean_y = statistics.fmean(y for _, y in points)
    den = sum((t - mean_t) ** 2 for t, _ in points)
    return sum((t - mean_t) * (y - mean_y) for t, y in points) / den if den else 0.0


def summarize(
    *, args, rate, peak, sent, convs, endpoint, browsers, rss,
    reports, run_seconds, drained_in, depth,
) -> dict:  # fmt: skip
    owed = set(sent.send_at)
    arrived = endpoint.arrivals
    lost = sorted(owed - arrived.keys())
    doubled = sorted(eid for eid, times in arrived.items() if len(times) > 1)
    bad_forwarded = sorted(sent.bad_ids & arrived.keys())
    webhook_doubled = sum(1 for n in endpoint.webhook_ids.values() if n > 1)
    # Lag by thirds of the run, by the time each event was sent.
    span = max(run_seconds, 1e-9)
    first_sent = min(sent.send_at.values(), default=0.0)
    thirds: list[list[float]] = [[], [], []]
    for eid, at in sent.send_at.items():
        if eid in arrived:
            third = min(2, int((at - first_sent) / span * 3))
            thirds[third].append((arrived[eid][0] - at) * 1000)
    lag_first, lag_last = pct(thirds[0], 99), pct(thirds[2], 99)
    lag_limit = args.lag_factor * lag_first + args.lag_slack * 1000
    memory = {}
    for name, points in rss.items():
        later = [(t, mb) for t, mb in points if t >= span / 3]
        start_mb = statistics.median(mb for t, mb in points if t < span / 3) if points else 0.0
        growth = slope(later) * span
        bound = max(args.memory_slack, 0.10 * start_mb)
        memory[name] = {
            "start_mb": round(start_mb, 1),
            "end_mb": round(points[-1][1], 1) if points else None,
            "slope_mb_per_min": round(slope(later) * 60, 2),
            "growth_mb": round(growth, 1),
            "bound_mb": round(bound, 1),
            "checked": name in CHECKED,
            "flat": growth <= bound,
        }
    acks = [ms for _, ms in sent.acks]
    statuses = {f"{kind} {status}": n for (kind, status), n in sorted(sent.statuses.items())}
    failures = []
    if lost:
        failures.append(f"{len(lost)} accepted events never reached the endpoint ({lost[:3]})")
    if doubled:
        failures.append(f"{len(doubled)} events reached the endpoint twice ({doubled[:3]})")
    if webhook_doubled:
        failures.append(f"{webhook_doubled} webhook-ids reached the endpoint twice")
    if peak["forwarded"] != peak["accepted"]:
        failures.append(
            f"peak phase: {peak['accepted']} events accepted, {peak['forwarded']} forwarded"
        )
    if bad_forwarded:
        failures.append(f"{len(bad_forwarded)} events with a bad signature were forwarded")
    wrong = {k: n for k, n in statuses.items() if k not in ("new 200", "duplicate 200", "bad 401")}
    if wrong:
        failures.append(f"unexpected receiver answers: {wrong}")
    if endpoint.bad_signatures:
        failures.append(f"{endpoint.bad_signatures} deliveries to the endpoint failed verification")
    if set(convs.statuses) - {200}:
        failures.append(f"conversation answers other than 200: {dict(convs.statuses)}")
    if browsers.closed:
        failures.append(
            f"{len(browsers.closed)} websockets closed by the server: {browsers.closed[:3]}"
        )
    if not lag_last <= lag_limit:
        failures.append(
            f"forwarding lag grows: last third p99 {lag_last:.0f} ms > {args.lag_factor:g} × "
            f"first third {lag_first:.0f} ms + {args.lag_slack:g} s"
        )
    for name, m in memory.items():
        if m["checked"] and not m["flat"]:
            failures.append(
                f"{name}'s memory grows: {m['growth_mb']} MB over the run (bound {m['bound_mb']} MB)"
            )
    return {
        "minutes": args.minutes,
        "peak": peak,
        "rate": rate,
        "run_seconds": run_seconds,
        "deliveries": statuses,
        "accepted": len(owed),
        "forwarded": len(owed & arrived.keys()),
        "lost": len(lost),
        "doubled": len(doubled),
        "webhook_ids_doubled": webhook_doubled,
        "bad_forwarded": len(bad_forwarded),
        "other_deliveries": dict(endpoint.other_types),
        "ack_p50_ms": pct(acks, 50),
        "ack_p99_ms": pct(acks, 99),
        "lag_p50_ms": pct([ms for third in thirds for ms in third], 50),
        "lag_p99_ms": pct([ms for third in thirds for ms in third], 99),
        "lag_p99_by_third_ms": [pct(third, 99) for third in thirds],
        "lag_limit_ms": lag_limit,
        "drained_in_s": drained_in,
        "queue_at_end": depth,
        "conversations": dict(convs.statuses),
        "conversation_p50_ms": pct([ms for _, ms in convs.latencies], 50),
        "conversation_p99_ms": pct([ms for _, ms in convs.latencies], 99),
        "websockets": len(browsers.sockets),
        "websocket_messages": browsers.messages,
        "websockets_closed": len(browsers.closed),
        "memory": memory,
        "reports": reports,
        "load_end": load_average(),
        "finished": time.strftime("%Y-%m-%d %H:%M"),
        "failures": failures,
    }


def report(r: dict) -> None:
    print(f"\nLoad — {os.cpu_count()} CPUs; load average {r['load_start']} at the start, "
          f"{r['load_end']} at the end ({r['finished']}); logs in {r['logs']}")  # fmt: skip
    print(
        f"peak {r['peak']['rps']:.0f}/s → run at {r['rate']:.0f}/s for {r['run_seconds']:.0f} s "
        f"(peak phase: {r['peak']['accepted']} accepted, {r['peak']['forwarded']} forwarded, "
        f"backlog drained in {r['peak']['drained_in_s']:.1f} s)"
    )
    print(f"deliveries: {r['deliveries']}")
    print(
        f"accepted {r['accepted']}, forwarded {r['forwarded']}, lost {r['lost']}, "
        f"doubled {r['doubled']} (webhook-ids {r['webhook_ids_doubled']}), "
        f"bad signatures forwarded {r['bad_forwarded']}; other deliveries {r['other_deliveries']}"
    )
    thirds = " / ".join(f"{ms:.0f}" for ms in r["lag_p99_by_third_ms"])
    print(
        f"receiver ack p50 {r['ack_p50_ms']:.1f} ms p99 {r['ack_p99_ms']:.1f} ms; forwarding lag "
        f"p50 {r['lag_p50_ms']:.0f} ms p99 {r['lag_p99_ms']:.0f} ms; p99 by third {thirds} ms "
        f"(limit {r['lag_limit_ms']:.0f}); drained {r['drained_in_s']:.1f} s after the run; "
        f"queue at the end {r['queue_at_end'][0]}+{r['queue_at_end'][1]}"
    )
    print(
        f"conversations {r['conversations']} p50 {r['conversation_p50_ms']:.0f} ms "
        f"p99 {r['conversation_p99_ms']:.0f} ms; websockets {r['websockets']} open, "
        f"{r['websocket_messages']} messages, {r['websockets_closed']} closed by the server"
    )
    print("memory (RSS with children, MB): start → end, slope over the last two thirds")
    for name, m in r["memory"].items():
        verdict = ("flat" if m["flat"] else "GROWS") if m["checked"] else "(not checked)"
        print(
            f"  {name:<10} {m['start_mb']:7.1f} → {m['end_mb']:7.1f}  "
            f"{m['slope_mb_per_min']:+6.2f} MB/min, {m['growth_mb']:+6.1f} MB over the run "
            f"(bound {m['bound_mb']:.0f}) {verdict}"
        )
    if r.get("dead"):
        print(f"processes that died: {r['dead']}")
    print("RESULT: " + ("FAIL — " + "; ".join(r["failures"]) if r["failures"] else "ok"))
