"""The py-spy profiles of bench/hot_path.py (``--py-spy``): each server
sampled while one target runs, summarized by ``hot_path_stacks.py``."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

from hot_path_calls import SERVERS
from hot_path_load import Series, timed
from stack import Http, pct

PY_SPY_RATE = 250  # samples per second and thread


def py_spy_record(pid: int, seconds: float, out: Path, rate: int) -> subprocess.Popen:
    """Sample a server (and its worker processes) while one target runs.
    ``--idle`` keeps threads waiting on PostgreSQL or Redis in the samples:
    for latency, waiting is where time goes too. ``--nonblocking``: the
    server is never paused to be read."""
    py_spy = Path(sys.executable).with_name("py-spy")
    argv = [
        str(py_spy), "record", "--pid", str(pid), "--duration", str(int(seconds)),
        "--rate", str(rate), "--format", "raw", "--output", str(out), "--idle", "--threads",
        "--subprocesses", "--nonblocking", "--full-filenames",
    ]  # fmt: skip
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)


async def profile(ports, pids, calls, args) -> None:
    from hot_path_stacks import summarize

    out = Path(args.py_spy)
    out.mkdir(parents=True, exist_ok=True)
    for server in SERVERS:
        for target in ("bare", "user", "lifecycle-0", "lifecycle-5"):
            path = out / f"{server}-{target}.txt"
            spy = py_spy_record(pids[server], args.py_spy_seconds, path, PY_SPY_RATE)
            try:
                conn = await Http.open(ports[server])
                series = Series()
                await asyncio.sleep(0.5)  # py-spy attaches
                deadline = time.perf_counter() + args.py_spy_seconds - 1
                raw = calls[server].raw(target, session=f"spy-{server}-{target}")
                while time.perf_counter() < deadline:
                    await timed(conn, raw, target, series, True)
                conn.close()
                await asyncio.to_thread(spy.wait, 30)
            finally:
                if spy.poll() is None:  # interrupted: py-spy goes with us
                    spy.kill()
                    spy.wait()
            print(f"\n{server} {target}: {len(series.latencies)} calls, p50 "
                  f"{pct(series.latencies, 50):.2f} ms; {path}")  # fmt: skip
            if path.exists():
                print(summarize(path.read_text(), calls=len(series.latencies), rate=PY_SPY_RATE))
