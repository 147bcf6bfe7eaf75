"""``surviving_reconnects``: a write recording what already happened outside
survives PostgreSQL dropping its connection again and again (docs/reliability.md
row 3), and gives up, as an ``OperationalError``, only when the database
stays away. Connections are really terminated, from a connection of their
own."""

from __future__ import annotations

import logging

import pytest
from django.db import IntegrityError, OperationalError, connection

from switchboard.models import Host
from switchboard.reconnect import StillDisconnected, surviving_reconnects
from tests.pg import postgresql_only, terminate_backends

pytestmark = pytest.mark.django_db(transaction=True)


def _drop_my_connection() -> None:
    """The backend serving this test's Django connection is terminated, as
    a failover would; Django only learns of it at its next statement."""
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    assert terminate_backends("pid = %s", (pid,)) == 1


def _write_after_drops(drops: int):
    tries = []

    def write() -> str:
        tries.append(len(tries) + 1)
        if len(tries) <= drops:
            _drop_my_connection()
        return Host.objects.create(name=f"written on try {len(tries)}").name

    return write, tries


def test_the_write_lands_on_a_fresh_connection_after_several_drops(caplog):
    postgresql_only()
    write, tries = _write_after_drops(3)
    with caplog.at_level(logging.WARNING, logger="switchboard.reconnect"):
        name = surviving_reconnects(write, what="test write", pauses=(0, 0, 0, 0, 0))
    assert name == "written on try 4" and tries == [1, 2, 3, 4]
    assert list(Host.objects.values_list("name", flat=True)) == ["written on try 4"]
    assert [r.getMessage() for r in caplog.records if r.name == "switchboard.reconnect"] == [
        "test write: the database connection failed; reconnecting"
    ] * 3


def test_a_database_that_stays_away_ends_it_as_an_operational_error():
    postgresql_only()
    write, tries = _write_after_drops(10)
    with pytest.raises(StillDisconnected) as raised:
        surviving_reconnects(write, what="test write", pauses=(0, 0, 0))
    assert tries == [1, 2, 3]
    assert isinstance(raised.value, OperationalError)
    assert isinstance(raised.value.__cause__, OperationalError)
    assert not Host.objects.exists()


def test_any_other_error_is_the_writes_own_and_not_tried_again():
    Host.objects.create(name="taken")
    tries = []

    def write() -> None:
        tries.append(1)
        Host.objects.create(name="taken")

    with pytest.raises(IntegrityError):
        surviving_reconnects(write, what="test write", pauses=(0, 0, 0))
    assert tries == [1]
