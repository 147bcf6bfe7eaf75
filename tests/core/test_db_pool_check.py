"""The pool's health check without a round trip for a connection used a
moment ago (``switchboard.db_pool.IdleCheck``), on a real PostgreSQL.

What a backend last ran is read from ``pg_stat_activity`` through a
connection of the test's own: the check is an empty query, so a backend
whose last query is still the test's marker was handed out unchecked."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import connection
from psycopg_pool import ConnectionPool

from switchboard.db_pool import IdleCheck
from tests.pg import admin_connect, postgresql_only

AFTER = 0.3  # seconds: short, so the test waits past it


@pytest.fixture
def pools(db):
    """A pool with ``IdleCheck(after)`` over the test database, closed after."""
    postgresql_only("psycopg's pool is PostgreSQL's")
    settings = connection.settings_dict
    conninfo = psycopg.conninfo.make_conninfo(
        dbname=settings["NAME"],
        user=settings["USER"] or None,
        host=settings["HOST"] or None,
        port=settings["PORT"] or None,
        password=settings["PASSWORD"] or None,
    )
    opened: list[ConnectionPool] = []

    def make(after: float = AFTER) -> ConnectionPool:
        # One connection, so every hand-out is the same one until it is replaced.
        pool = ConnectionPool(
            conninfo,
            min_size=1,
            max_size=1,
            check=IdleCheck(after=after),
            kwargs={"autocommit": True},
            name="idle-check-test",
            open=True,
        )
        opened.append(pool)
        pool.wait()
        return pool

    yield make
    for pool in opened:
        pool.close()


@pytest.fixture
def pool(pools):
    return pools()


def _last_query(pid: int) -> str:
    with admin_connect() as admin:
        row = admin.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()
    assert row is not None, f"backend {pid} is gone"
    return row[0]


def _use(pool: ConnectionPool, marker: str) -> int:
    with pool.connection() as conn:
        conn.execute(f"SELECT '{marker}'")
        return conn.info.backend_pid


def test_a_connection_used_a_moment_ago_is_handed_out_unchecked(pool):
    pid = _use(pool, "first use")  # new in the pool: checked, then used
    with pool.connection() as conn:
        assert conn.info.backend_pid == pid
        # No empty query reached the backend since the marker.
        assert _last_query(pid) == "SELECT 'first use'"


def test_a_connection_idle_past_the_threshold_is_checked(pool):
    pid = _use(pool, "before the pause")
    time.sleep(AFTER + 0.1)
    with pool.connection() as conn:
        assert conn.info.backend_pid == pid
        assert _last_query(pid) == ""  # psycopg's check: an empty query


def test_a_terminated_backend_idle_past_the_threshold_is_replaced(pool):
    pid = _use(pool, "before the kill")
    time.sleep(AFTER + 0.1)
    with admin_connect() as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    with pool.connection() as conn:
        assert conn.info.backend_pid != pid
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_a_backend_terminated_right_after_its_use_is_replaced_too(pool):
    # Within the threshold: the ended backend's farewell on the socket is
    # what gives it away, without a round trip.
    pid = _use(pool, "before the kill")
    with admin_connect() as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    deadline = time.monotonic() + 5
    while _backend_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    with pool.connection() as conn:
        assert conn.info.backend_pid != pid
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_zero_checks_every_hand_out(pools):
    pool = pools(after=0)
    pid = _use(pool, "just used")
    with pool.connection() as conn:
        assert conn.info.backend_pid == pid
        assert _last_query(pid) == ""


def _backend_alive(pid: int) -> bool:
    with admin_connect() as admin:
        row = admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()
    return row is not None
