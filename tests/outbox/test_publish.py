"""The outbox's publisher (bench/README.md, *Load*): pending rows are handed to one thread
per process, which sends Celery one task for the rows that gathered while it
was sending the last one; a lost publish is still sent by the sweeper, and a
burst's task sends every row of it."""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta

from celery import current_app
from django.utils import timezone

from outbox.emit import host_event_emit
from outbox.models import DeliveryStatus, HostDelivery
from outbox.publish import BATCH_MAX, GATHER, SEND_MANY, SEND_ONE, Publisher, publisher
from outbox.services import host_deliveries_sweep
from outbox.tasks import send_host_deliveries
from tests.subscriptions.support import wait_for


class Broker:
    """Records what is sent; the first send can be held, as a slow broker would."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, list]] = []
        self.first_started = threading.Event()
        self.release = threading.Event()

    def send(self, name: str, args: list) -> None:
        if not self.sent:
            self.first_started.set()
            self.release.wait(5)
        self.sent.append((name, args))


def test_a_lone_row_goes_at_once_and_a_burst_behind_it_goes_as_one_task():
    broker = Broker()
    own = Publisher(send=broker.send)
    own.publish([1])
    assert broker.first_started.wait(5)  # no window to fill: sent right away
    for seq in range(2, 7):  # arrive while the broker is busy with the first
        own.publish([seq])
    broker.release.set()
    wait_for(lambda: len(broker.sent) == 2, timeout=5, message="two publishes")
    assert broker.sent == [
        ("outbox.send_host_delivery", [1]),
        ("outbox.send_host_deliveries", [[2, 3, 4, 5, 6]]),
    ]


def test_rows_arriving_a_few_milliseconds_apart_go_as_one_task():
    """A steady stream, not a burst: the broker answers at once, yet rows
    that follow each other closely are gathered (GATHER) rather than sent
    one task each, which cost the worker about three times as much per row
    (bench/load.py)."""
    sent: list[tuple[str, list]] = []
    first = threading.Event()

    def send(name: str, args: list) -> None:
        sent.append((name, args))
        first.set()

    own = Publisher(send=send)
    own.publish([1])
    assert first.wait(5)  # the first row, at once
    for seq in (2, 3, 4):
        time.sleep(0.002)
        own.publish([seq])
    wait_for(lambda: len(sent) >= 2, timeout=5, message="the rows behind it")
    # An absence to show: no third task follows within a few gathering
    # windows (nothing to wait for, so a bounded look).
    time.sleep(3 * GATHER)
    assert sent == [
        ("outbox.send_host_delivery", [1]),
        ("outbox.send_host_deliveries", [[2, 3, 4]]),
    ]


def rows_in(name: str, args: list) -> list[int]:
    """The rows one published task sends."""
    return args if name == "outbox.send_host_delivery" else args[0]


def test_a_big_burst_is_spread_over_tasks_of_at_most_batch_max_rows():
    sent: list[tuple[str, list]] = []
    own = Publisher(send=lambda name, args: sent.append((name, args)))
    seqs = list(range(1, 2 * BATCH_MAX + 2))
    own._waiting.extend(seqs)  # as if they had gathered during a slow send
    own.flush()
    assert [len(rows_in(*task)) for task in sent] == [BATCH_MAX, BATCH_MAX, 1]
    assert [seq for task in sent for seq in rows_in(*task)] == seqs


def test_the_tasks_it_sends_are_registered(db):
    """A typo in a name would only show on a worker."""
    current_app.loader.import_default_modules()
    assert {SEND_ONE, SEND_MANY} <= set(current_app.tasks)


def test_a_refused_publish_is_logged_and_the_sweeper_sends_the_row(
    personas, endpoint, monkeypatch, caplog, settings, django_capture_on_commit_callbacks
):
    def refuse(name, args):
        raise ConnectionError("broker down")

    monkeypatch.setattr(publisher, "send", refuse)
    with caplog.at_level(logging.WARNING, logger="outbox.publish"):
        with django_capture_on_commit_callbacks(execute=True):
            delivery = host_event_emit(host_id=personas.acme.id, type="ping", data={})
        wait_for(lambda: "broker down" in caplog.text, timeout=5, message="the warning")
    assert "the sweeper will send those rows" in caplog.text
    assert HostDelivery.objects.get(seq=delivery.seq).status == DeliveryStatus.PENDING
    # Once HOST_DELIVERY_REQUEUE_AFTER has passed without a sender, the
    # sweeper enqueues it again.
    HostDelivery.objects.filter(seq=delivery.seq).update(
        enqueued_at=timezone.now() - timedelta(seconds=settings.HOST_DELIVERY_REQUEUE_AFTER + 1)
    )
    swept: list[tuple[str, list]] = []
    monkeypatch.setattr(publisher, "send", lambda name, args: swept.append((name, args)))
    with django_capture_on_commit_callbacks(execute=True):
        assert host_deliveries_sweep() == 1
    wait_for(lambda: swept, timeout=5, message="the sweeper's publish")
    assert swept == [("outbox.send_host_delivery", [delivery.seq])]


def test_a_bursts_task_sends_each_of_its_rows_once(personas, endpoint, receiver):
    rows = [host_event_emit(host_id=personas.acme.id, type="ping", data={"n": n}) for n in range(3)]
    seqs = [row.seq for row in rows]
    assert send_host_deliveries.run(seqs) == 3
    assert send_host_deliveries.run(seqs) == 0  # a redelivered task: each row is claimed or sent
    assert sorted(r["data"]["n"] for r in receiver.accepted()) == [0, 1, 2]
    assert set(HostDelivery.objects.values_list("status", flat=True)) == {DeliveryStatus.DELIVERED}
