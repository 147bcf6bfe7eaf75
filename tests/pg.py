"""PostgreSQL from the outside, for tests that inject faults: backends
terminated from a separate connection, as a failover or an administrator
would."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from django.db import connection
from psycopg import pq


def postgresql_only(why: str = "terminates PostgreSQL backends") -> None:
    if connection.vendor != "postgresql":
        pytest.skip(f"{why}; the PostgreSQL pass runs it")


def admin_connect() -> psycopg.Connection:
    """A connection of its own to the test database (autocommit)."""
    settings = connection.settings_dict
    conninfo = psycopg.conninfo.make_conninfo(
        dbname=settings["NAME"],
        user=settings["USER"] or None,
        host=settings["HOST"] or None,
        port=settings["PORT"] or None,
        password=settings["PASSWORD"] or None,
    )
    return psycopg.connect(conninfo, autocommit=True)


def terminate_backends(where: str, params: tuple = ()) -> int:
    """Terminate the test database's backends matching ``where`` (SQL over
    ``pg_stat_activity``), never the caller's own."""
    with admin_connect() as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE datname = current_database() AND pid <> pg_backend_pid() AND {where}",
            params,
        ).fetchall()
    return len(rows)


class RoundTrips(list[str]):
    """What one connection asked PostgreSQL, one entry per round trip."""


@contextmanager
def round_trips() -> Iterator[RoundTrips]:
    """Every round trip Django's connection makes to PostgreSQL inside the
    block, read from libpq's own protocol trace: a simple ``Query`` (BEGIN,
    COMMIT, a statement without parameters) or an extended-protocol batch
    ending in ``Sync`` (Parse, Bind, Execute of a statement with
    parameters) is one each. Unlike ``CaptureQueriesContext`` it sees what
    Django does not log: the transaction's BEGIN and COMMIT."""
    connection.ensure_connection()
    pgconn = connection.connection.pgconn
    seen = RoundTrips()
    with tempfile.TemporaryFile() as trace:
        pgconn.trace(trace.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            yield seen
        finally:
            pgconn.untrace()  # flushes libpq's buffer
            trace.seek(0)
            seen.extend(_round_trips(trace.read().decode(errors="replace")))


def _round_trips(trace: str) -> list[str]:
    trips, parsed = [], ""
    for line in trace.splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or parts[0] != "F":
            continue  # the server's side
        message, rest = parts[2], "\t".join(parts[3:]).strip()
        if message == "Query":
            trips.append(rest.strip('"'))
        elif message == "Parse":
            parsed = rest
        elif message == "Sync":
            trips.append(parsed)
    return trips
