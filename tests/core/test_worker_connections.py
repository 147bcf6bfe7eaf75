"""A Celery worker child keeps its PostgreSQL connections between tasks
(config/celery_db.py). Celery's Django fixup closed the child's connection
pool around every task, so each task opened new PostgreSQL backends: found
measuring why an idle live stack kept a core busy (~90 new backends a second
with beat ticking every 0.5 s)."""

from __future__ import annotations

import time

import pytest

from tests.live import log_offset
from tests.pg import admin_connect, postgresql_only

pytestmark = pytest.mark.processes

WINDOW_SECONDS = 6


def _sessions_started() -> int:
    """Backends ever started on the test database (its statistics, flushed
    by each backend at the latest when it ends)."""
    with admin_connect() as admin:
        admin.execute("SELECT pg_stat_clear_snapshot()")
        row = admin.execute(
            "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_a_worker_keeps_its_database_connections_between_tasks(live):
    postgresql_only("counts the backends PostgreSQL starts")
    worker = live.child("worker")
    assert worker.log_path is not None
    since = log_offset(live.supervisor, "worker")
    before = _sessions_started()
    # Beat sends every periodic task each 0.5 s (tests/testenv.py); each of
    # them reads the database in a worker child.
    time.sleep(WINDOW_SECONDS)
    started = _sessions_started() - before - 1  # less the count's own connection
    with open(worker.log_path, encoding="utf-8", errors="replace") as log:
        log.seek(since)
        tasks = log.read().count(" succeeded in ")
    assert tasks >= 50, f"only {tasks} tasks ran in {WINDOW_SECONDS} s: is beat running?"
    # Once a child's pool is open (two connections, and one more a moment of
    # contention may add, for each of the two children) a task opens none.
    assert started <= 6 + tasks // 20, (
        f"{started} PostgreSQL backends started for {tasks} tasks: the workers "
        "open new connections per task"
    )
