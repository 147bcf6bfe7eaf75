"""Shared fixtures: personas, API clients, and the real processes tests need.
The environment is prepared earlier, in ``tests/testenv.py``."""

from __future__ import annotations

import time

import pytest
from django.core.management.base import CommandError
from django.db import OperationalError
from django.test import TransactionTestCase

from tests.factories import Personas, make_personas

pytest_plugins = ["tests.live", "pytester"]

_flush = TransactionTestCase._fixture_teardown


def _flush_patiently(self) -> None:
    """The session's Celery worker may still be finishing a task a test enqueued
    (a forward, a broadcast) when the test database is truncated; PostgreSQL then
    picks the TRUNCATE as a deadlock victim. Flushing again once the task has let
    go is what a person would do; a flush that keeps failing still fails."""
    for attempt in range(5):
        try:
            return _flush(self)
        except CommandError as error:
            if not isinstance(error.__cause__, OperationalError) or attempt == 4:
                raise
            time.sleep(0.2 * (attempt + 1))


TransactionTestCase._fixture_teardown = _flush_patiently  # type: ignore[method-assign]


def _uses_database(item: pytest.Item) -> bool:
    """Whether pytest-django orders ``item`` among the database tests (it runs
    those first, as Django does, and tests with no database last)."""
    if item.get_closest_marker("django_db") is not None:
        return True
    cls = getattr(item, "cls", None)
    if cls is not None and issubclass(cls, TransactionTestCase):
        return True
    return bool({"db", "transactional_db", "live_server"} & set(getattr(item, "fixturenames", ())))


def _module_fixtures(item: pytest.Item) -> set[tuple[str, object]]:
    """The module-scoped fixtures ``item`` uses, with the parameter it gets."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return set()
    callspec = getattr(item, "callspec", None)
    indices = callspec.indices if callspec is not None else {}
    return {
        (name, indices.get(name))
        for name, defs in info.name2fixturedefs.items()
        if defs and defs[-1].scope == "module"
    }


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep a module-scoped fixture's tests together. pytest-django's order
    (database tests, then transactional ones, then those with no database)
    put a module's test with no database after every other module's, apart
    from the module's other tests: a module-scoped fixture they share (the
    scale-out test's nine processes) was torn down after the others and set
    up again for it at the end of the run. Such a test now runs right after
    the last test before it sharing that fixture; it touches no database, so
    where it runs among the database tests changes nothing for them."""
    placed: list[pytest.Item] = []
    for item in items:
        shared = _module_fixtures(item)
        if shared and not _uses_database(item):
            after = [
                index
                for index, earlier in enumerate(placed)
                if earlier.path == item.path and shared & _module_fixtures(earlier)
            ]
            if after:
                placed.insert(after[-1] + 1, item)
                continue
        placed.append(item)
    items[:] = placed


@pytest.fixture
def personas(db) -> Personas:
    return make_personas()


@pytest.fixture
def tpersonas(transactional_db) -> Personas:
    """Personas committed to the database, for tests that use other processes."""
    return make_personas()


@pytest.fixture
def tasks_sent(monkeypatch) -> list[tuple[str, tuple, float | None]]:
    """What services send to Celery, recorded instead of sent (the broker is
    not ours): ``(task name, args, countdown)``. The live suites run real
    workers; this is for tests that must see exactly which tasks a write sends."""
    from celery import current_app

    calls: list[tuple[str, tuple, float | None]] = []

    def record(name, args=None, countdown=None, **kwargs):
        calls.append((name, tuple(args or ()), countdown))

    monkeypatch.setattr(current_app, "send_task", record)
    return calls


@pytest.fixture
def receiver():
    """A host endpoint on loopback that records what is forwarded to it."""
    from tests.subscriptions.support import HostReceiver

    receiver = HostReceiver()
    yield receiver
    receiver.close()


@pytest.fixture(scope="session", autouse=True)
def _close_stray_connections(django_db_setup, django_db_blocker):
    """Threads (sync_to_async, channels auth) and child processes keep their own
    connections; end them so the test database can be dropped cleanly."""
    yield
    from django.db import connection

    # pytest-django sets up a test database only when a collected test asks
    # for one: a run of database-less tests has none to clean up (and the
    # configured database may not even exist).
    on_test_database = connection.settings_dict["NAME"].startswith("test_")
    with django_db_blocker.unblock():
        if connection.vendor == "postgresql" and on_test_database:
            # Each backend is waited for until it has ended (up to 1 s), and
            # the sweep repeats until it finds none: a process still ending
            # (a pool's last connection) can open one after the first sweep,
            # and the database then stayed behind (seen once, under xdist).
            deadline = time.monotonic() + 10
            with connection.cursor() as cursor:
                while time.monotonic() < deadline:
                    cursor.execute(
                        "SELECT pg_terminate_backend(pid, 1000) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    )
                    if not cursor.fetchall():
                        break
