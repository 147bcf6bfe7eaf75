"""Shared fixtures: personas, API clients, and the real processes tests need.
The environment is prepared earlier, in ``tests/testenv.py``."""

from __future__ import annotations

import pytest

from tests.factories import Personas, make_personas

pytest_plugins = ["tests.live"]


@pytest.fixture
def personas(db) -> Personas:
    return make_personas()


@pytest.fixture
def tpersonas(transactional_db) -> Personas:
    """Personas committed to the database, for tests that use other processes."""
    return make_personas()


@pytest.fixture(scope="session", autouse=True)
def _close_stray_connections(django_db_setup, django_db_blocker):
    """Threads (sync_to_async, channels auth) and child processes keep their own
    connections; end them so the test database can be dropped cleanly."""
    yield
    from django.db import connection

    with django_db_blocker.unblock():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
