"""PostgreSQL from the outside, for tests that inject faults: backends
terminated from a separate connection, as a failover or an administrator
would."""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection


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
