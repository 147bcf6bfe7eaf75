"""docs/reliability.md row 4: a process that dies between its commit and the enqueue.

The rows are committed; the task that should send them is never published
(the process is SIGKILLed in the first after-commit callback, before the
outbox's publisher is handed anything). Nobody retries anything by hand: the
sweeper, run by the session's beat, must find the rows and the worker must
deliver each once."""

from __future__ import annotations

import signal
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from config import supervisor as sv
from outbox.models import DeliveryStatus, HostDelivery
from outbox.services import host_endpoint_set
from tests.live import _env
from tests.subscriptions.support import SYSTEM, wait_for

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]
COUNT = 5

# Runs in its own process, as the web process or a worker would: emit the
# rows in one transaction and die right after the commit.
EMIT_AND_DIE = textwrap.dedent(
    """
    import os, signal, sys

    import django

    django.setup()
    from django.db import transaction

    from outbox.emit import host_event_emit

    host_id, count = sys.argv[1], int(sys.argv[2])
    with transaction.atomic():
        # Registered first, so it runs before the publisher gets the rows.
        transaction.on_commit(lambda: os.kill(os.getpid(), signal.SIGKILL))
        for n in range(count):
            host_event_emit(host_id=host_id, type="ping", data={"n": n})
    print("still alive after the commit", flush=True)
    """
)


def test_rows_committed_by_a_process_that_died_before_enqueueing_are_delivered(
    live, tpersonas, receiver, settings
):
    _, receiver.secret = host_endpoint_set(host=tpersonas.acme, url=receiver.url, actor=SYSTEM)
    died = subprocess.run(
        [sv.python(), "-c", EMIT_AND_DIE, tpersonas.acme.id, str(COUNT)],
        env=_env({"PUBLIC_BASE_URL": live.base_url}),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    died_at = time.monotonic()
    assert died.returncode == -signal.SIGKILL, died.stdout + died.stderr
    rows = HostDelivery.objects.filter(host=tpersonas.acme)
    assert rows.count() == COUNT  # committed before the process died

    wait_for(
        lambda: rows.filter(status=DeliveryStatus.DELIVERED).count() == COUNT,
        timeout=30,
        message="the sweeper's deliveries",
    )
    # Sent by the sweeper, not by a publish: not before the rows counted as lost.
    first = min(receiver.hit_times) - died_at
    assert first >= settings.HOST_DELIVERY_REQUEUE_AFTER - 1, first
    sent = sorted(got["webhook_id"] for got in receiver.accepted())
    assert sent == sorted(rows.values_list("webhook_id", flat=True))  # each once
    assert not receiver.rejected
