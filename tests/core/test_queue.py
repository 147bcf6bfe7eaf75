"""switchboard.queue: services send tasks by name, after commit, and a broker
that refuses never fails the write. Celery's own send is replaced by a
recorder here (``tasks_sent``: the broker is not ours); the live suites run real workers."""

import logging
import time

import pytest
from celery import current_app
from django.db import transaction

from switchboard.queue import enqueue, enqueue_coalesced, enqueue_each


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


def _wait_for(sent, count: int) -> None:
    deadline = time.monotonic() + 5
    while len(sent) < count:
        assert time.monotonic() < deadline, sent
        time.sleep(0.005)


def test_a_burst_of_coalesced_wants_sends_few_tasks_off_the_callers_thread(sent):
    for _ in range(500):
        enqueue_coalesced("hooks.write_records")
    _wait_for(sent, 1)
    # The thread sleeps between sends, so a tight burst is one send, or two
    # when the burst straddles a send.
    time.sleep(0.2)
    assert 1 <= len(sent) <= 2, sent
    assert set(sent) == {("hooks.write_records", (), None)}


def test_a_want_after_a_send_is_sent_again(sent):
    enqueue_coalesced("hooks.write_records")
    _wait_for(sent, 1)
    enqueue_coalesced("hooks.write_records")
    _wait_for(sent, 2)


def test_a_refused_coalesced_send_is_logged_and_the_next_want_still_sent(monkeypatch, caplog):
    calls = []

    def refuse_once(name, **kwargs):
        calls.append(name)
        if len(calls) == 1:
            raise ConnectionError("broker down")

    monkeypatch.setattr(current_app, "send_task", refuse_once)
    with caplog.at_level(logging.WARNING, logger="switchboard.queue"):
        enqueue_coalesced("hooks.write_records")
        _wait_for(calls, 1)
        enqueue_coalesced("hooks.write_records")
        _wait_for(calls, 2)
    assert "beat's sweep will" in caplog.text
