"""switchboard.queue: services send tasks by name, after commit, and a broker
that refuses never fails the write. Celery's own send is replaced by a
recorder here (``tasks_sent``: the broker is not ours); the live suites run real workers."""

import logging

import pytest
from celery import current_app
from django.db import transaction

from switchboard.queue import enqueue, enqueue_each


@pytest.fixture
def sent(tasks_sent):
    return tasks_sent


def test_a_task_is_sent_only_once_the_transaction_commits(
    db, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        enqueue("hooks.refresh_thread", "rfr_1", countdown=2.5)
        enqueue_each("outbox.send_host_delivery", [(1,), (2,)])
        assert sent == []
    assert sent == [
        ("hooks.refresh_thread", ("rfr_1",), 2.5),
        ("outbox.send_host_delivery", (1,), None),
        ("outbox.send_host_delivery", (2,), None),
    ]


def test_a_rolled_back_transaction_sends_nothing(db, sent, django_capture_on_commit_callbacks):
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        enqueue("hooks.refresh_thread", "rfr_1")
        raise RuntimeError("the write failed")
    assert sent == []


def test_a_broker_that_refuses_is_logged_not_raised(
    db, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    def refuse(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(current_app, "send_task", refuse)
    with (
        caplog.at_level(logging.WARNING, logger="switchboard.queue"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        enqueue_each("outbox.send_host_delivery", [(7,), (8,)])
    warnings = [r.getMessage() for r in caplog.records if r.name == "switchboard.queue"]
    assert len(warnings) == 2 and "outbox.send_host_delivery(7,)" in warnings[0]


def test_every_name_sent_is_a_registered_task(db):
    """A typo in a task name would only show on a worker; catch it here."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[2]
    names = set()
    for path in root.glob("*/**/*.py"):
        if ".venv" in path.parts or "tests" in path.parts:
            continue
        names |= set(re.findall(r'enqueue(?:_each)?\(\s*"([\w.]+)"', path.read_text()))
    assert names, "no enqueue calls found"
    current_app.loader.import_default_modules()
    assert names <= set(current_app.tasks), names - set(current_app.tasks)
