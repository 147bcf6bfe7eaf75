"""docs/reliability.md row 12, short: ``bench/load.py --minutes 0.5`` must pass — no
event lost or doubled, bad signatures refused, lag and memory not growing.

The bench makes a PostgreSQL database of its own per run (CREATE DATABASE
next to DATABASE_URL's) and drives four processes writing at ~100 events/s:
on SQLite one file lock would measure SQLite, so it runs on PostgreSQL only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.processes,
    pytest.mark.skipif(
        not settings.DATABASE_URL.startswith("postgres"),
        reason="bench/load.py creates a PostgreSQL database per run",
    ),
]


def test_a_short_load_run_loses_and_doubles_nothing():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    run = subprocess.run(
        [sys.executable, "bench/load.py", "--minutes", "0.5", "--peak-seconds", "4",
         "--database-url", settings.DATABASE_URL, "--redis-url", settings.REDIS_URL],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-4000:]
    assert "RESULT: ok" in out
    assert " lost 0, doubled 0 (webhook-ids 0), bad signatures forwarded 0" in out
    assert "websockets 50 open" in out and "0 closed by the server" in out
