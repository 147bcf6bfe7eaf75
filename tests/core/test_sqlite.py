"""The embedded SQLite default under several writers at once (web, worker and
beat share one file): writers wait their turn instead of failing."""

import threading
import time

import pytest
from django.db import connection, transaction

from switchboard.models import Host

pytestmark = [
    pytest.mark.sqlite,
    pytest.mark.skipif(
        connection.vendor != "sqlite", reason="SQLite's own locking; the SQLite pass runs it"
    ),
]


def test_the_database_runs_in_wal_mode(db):
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"


def test_two_transactions_that_read_then_write_both_succeed(transactional_db):
    """The pattern that logged "database is locked" under make run: each
    transaction reads, then writes, while the other holds the write lock."""
    Host.objects.create(name="base")
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def read_then_write(name: str) -> None:
        try:
            start.wait()
            with transaction.atomic():
                Host.objects.count()
                time.sleep(0.3)
                Host.objects.create(name=name)
                time.sleep(0.3)
        except BaseException as error:  # the assertion below reports it
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=read_then_write, args=(n,)) for n in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert sorted(Host.objects.values_list("name", flat=True)) == ["a", "b", "base"]
