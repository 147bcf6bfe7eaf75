"""Forwarding the outbox to a real HTTP endpoint that verifies with svix."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from outbox.emit import host_event_emit
from outbox.models import DeliveryStatus, EndpointStatus, HostDelivery, HostEndpoint
from outbox.services import (
    host_deliveries_recover,
    host_deliveries_sweep,
    host_delivery_resend,
    host_delivery_send,
    host_endpoint_enable,
    host_endpoint_set,
)
from switchboard.models import AuditEntry
from switchboard.queue import SENT_AT_HEADER, queue_waiting_since
from tests.subscriptions.support import SYSTEM


def emit(personas, type_="ping", data=None):
    return host_event_emit(host_id=personas.acme.id, type=type_, data=data or {})


def reload(delivery):
    return HostDelivery.objects.get(seq=delivery.seq)


def test_a_delivery_is_signed_so_svix_accepts_it_and_the_attempt_is_logged(
    personas, endpoint, receiver
):
    delivery = emit(personas, "consent.updated", {"grant_id": "grt_1", "status": "active"})
    assert host_delivery_send(seq=delivery.seq) == "delivered"
    assert not receiver.rejected
    got = receiver.accepted()[0]
    assert got["webhook_id"] == delivery.webhook_id
    assert got["type"] == "consent.updated" and got["data"] == {
        "grant_id": "grt_1",
        "status": "active",
    }
    assert got["timestamp"].endswith("Z")
    delivery = reload(delivery)
    assert delivery.status == DeliveryStatus.DELIVERED
    attempt = delivery.tries.get()
    assert attempt.status_code == 204 and attempt.error_category == "" and attempt.duration_ms >= 0
    assert HostEndpoint.objects.get().last_success_at is not None


def test_failures_retry_on_the_schedule_under_the_same_webhook_id(
    personas, endpoint, receiver, settings
):
    settings.HOST_DELIVERY_RETRY_SCHEDULE = [0, 0, 0]
    receiver.responses = [(500, {}), (503, {})]
    delivery = emit(personas)
    assert host_delivery_send(seq=delivery.seq) == "retry"
    assert host_delivery_send(seq=delivery.seq) == "retry"
    assert host_delivery_send(seq=delivery.seq) == "delivered"
    ids = {r["webhook_id"] for r in receiver.received}
    assert ids == {delivery.webhook_id}
    tries = list(reload(delivery).tries.values_list("status_code", "error_category"))
    assert tries == [(500, "http_5xx"), (503, "http_5xx"), (204, "")]


def test_retry_after_is_honoured_and_the_wait_lives_in_the_database(
    personas, endpoint, receiver, settings
):
    settings.HOST_DELIVERY_RETRY_SCHEDULE = [5, 300]
    receiver.responses = [(429, {"Retry-After": "120"})]
    delivery = emit(personas)
    before = timezone.now()
    assert host_delivery_send(seq=delivery.seq) == "retry"
    delivery = reload(delivery)
    assert delivery.next_attempt_at >= before + timedelta(seconds=119)
    assert delivery.enqueued_at is None  # the sweeper picks it up when due
    assert host_delivery_send(seq=delivery.seq) == "skipped"  # not due yet


def test_redirects_are_not_followed(personas, endpoint, receiver, settings):
    settings.HOST_DELIVERY_RETRY_SCHEDULE = [60]
    receiver.responses = [(302, {"Location": "http://127.0.0.1:9/elsewhere"})]
    delivery = emit(personas)
    assert host_delivery_send(seq=delivery.seq) == "retry"
    assert receiver.hits == 1
    assert reload(delivery).tries.get().error_category == "http_3xx"


def test_a_410_disables_the_endpoint_until_it_is_enabled(personas, endpoint, receiver, settings):
    settings.HOST_DELIVERY_RETRY_SCHEDULE = [0]
    receiver.responses = [(410, {})]
    first, second = emit(personas), emit(personas)
    assert host_delivery_send(seq=first.seq) == "disabled"
    assert HostEndpoint.objects.get().status == EndpointStatus.DISABLED
    assert reload(second).status == DeliveryStatus.DISABLED
    assert emit(personas).status == DeliveryStatus.DISABLED
    assert AuditEntry.objects.filter(kind="host_endpoint.disabled").exists()
    host_endpoint_enable(host=personas.acme, actor=SYSTEM)
    assert reload(second).status == DeliveryStatus.PENDING
    assert host_delivery_send(seq=second.seq) == "delivered"


def test_an_endpoint_failing_for_too_long_is_disabled_with_a_notice(
    personas, endpoint, receiver, settings
):
    settings.HOST_DELIVERY_RETRY_SCHEDULE = [0, 0]
    settings.HOST_ENDPOINT_DISABLE_AFTER = 3 * 3600
    HostEndpoint.objects.update(failing_since=timezone.now() - timedelta(hours=2))
    receiver.responses = [(500, {})]
    delivery = emit(personas)
    host_delivery_send(seq=delivery.seq)
    assert HostEndpoint.objects.get().status == EndpointStatus.ACTIVE
    HostEndpoint.objects.update(failing_since=timezone.now() - timedelta(hours=2))
    settings.HOST_ENDPOINT_DISABLE_AFTER = 60
    receiver.responses = [(500, {})]
    host_delivery_send(seq=delivery.seq)
    endpoint = HostEndpoint.objects.get()
    assert endpoint.status == EndpointStatus.DISABLED and "failed since" in endpoint.disabled_reason
    assert AuditEntry.objects.filter(kind="host_endpoint.disabled").exists()


def test_retries_run_out_and_the_delivery_fails(personas, endpoint, receiver, settings):
    settings.HOST_DELIVERY_RETRY_SCHEDULE = [0]
    receiver.responses = [(500, {}), (500, {})]
    delivery = emit(personas)
    host_delivery_send(seq=delivery.seq)
    assert host_delivery_send(seq=delivery.seq) == "failed"
    assert reload(delivery).status == DeliveryStatus.FAILED


def test_resend_and_recover_send_again_under_the_same_webhook_id(
    personas, endpoint, receiver, settings
):
    settings.HOST_DELIVERY_RETRY_SCHEDULE = [0]
    receiver.responses = [(500, {}), (500, {})]
    delivery = emit(personas)
    host_delivery_send(seq=delivery.seq)
    host_delivery_send(seq=delivery.seq)
    assert reload(delivery).status == DeliveryStatus.FAILED
    host_delivery_resend(delivery=delivery, actor=SYSTEM)
    assert host_delivery_send(seq=delivery.seq) == "delivered"
    # recover: everything undelivered since a time, including rows recorded
    # before an endpoint existed.
    HostEndpoint.objects.all().delete()
    early = emit(personas)
    assert early.status == DeliveryStatus.NO_ENDPOINT
    _, receiver.secret = host_endpoint_set(host=personas.acme, url=receiver.url, actor=SYSTEM)
    count = host_deliveries_recover(
        host=personas.acme, since=timezone.now() - timedelta(minutes=5), actor=SYSTEM
    )
    assert count == 1
    assert host_delivery_send(seq=early.seq) == "delivered"
    assert [r["webhook_id"] for r in receiver.accepted()] == [delivery.webhook_id, early.webhook_id]


def test_the_previous_endpoint_secret_keeps_verifying_after_a_new_one(personas, endpoint, receiver):
    old = receiver.secret
    host_endpoint_set(host=personas.acme, url=receiver.url, actor=SYSTEM)
    receiver.secret = old  # a host that has not switched yet
    assert host_delivery_send(seq=emit(personas).seq) == "delivered"
    assert not receiver.rejected


def test_the_sweeper_enqueues_rows_whose_task_was_lost(personas, endpoint, settings):
    settings.HOST_DELIVERY_REQUEUE_AFTER = 60
    fresh = emit(personas)
    lost = emit(personas)
    HostDelivery.objects.filter(seq=lost.seq).update(
        enqueued_at=timezone.now() - timedelta(minutes=5)
    )
    retry_due = emit(personas)
    HostDelivery.objects.filter(seq=retry_due.seq).update(enqueued_at=None)
    assert host_deliveries_sweep() == 2
    assert reload(fresh).enqueued_at == fresh.enqueued_at
    assert reload(lost).enqueued_at > timezone.now() - timedelta(seconds=5)
    assert host_deliveries_sweep() == 0  # not twice


def test_the_sweeper_does_not_take_a_backlog_for_lost_tasks(personas, endpoint, settings):
    """Found by bench/load.py: with more rows waiting than the worker sends in
    HOST_DELIVERY_REQUEUE_AFTER, every sweep enqueued each waiting row again
    (5,716 extra tasks for 3,126 rows in 4 minutes), so the queue grew
    faster than the worker could empty it and forwarding lag grew without
    bound. While tasks wait in the queue, a row's task is in line, not lost."""
    from celery import current_app

    settings.HOST_DELIVERY_REQUEUE_AFTER = 60
    waiting = emit(personas)
    HostDelivery.objects.filter(seq=waiting.seq).update(
        enqueued_at=timezone.now() - timedelta(minutes=5)
    )
    never_enqueued = emit(personas)
    HostDelivery.objects.filter(seq=never_enqueued.seq).update(enqueued_at=None)
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    with current_app.connection_for_write() as conn:
        conn.default_channel.client.rpush(queue, b"{}")  # a task still waiting in line
    try:
        assert host_deliveries_sweep() == 1  # only the row never enqueued
        assert reload(waiting).enqueued_at < timezone.now() - timedelta(minutes=4)
    finally:
        with current_app.connection_for_write() as conn:
            conn.default_channel.client.delete(queue)
    assert host_deliveries_sweep() == 1  # the queue empty: now it counts as lost


def test_a_lost_task_is_sent_again_behind_a_queue_that_never_empties(personas, endpoint, settings):
    """A steady load keeps the queue from ever emptying; a task lost meanwhile
    (a worker killed) must still be sent again. A row enqueued well before
    the oldest task still waiting was published has left the queue: if
    nobody holds it, its task was lost. One enqueued after is in line."""
    from celery import current_app

    settings.HOST_DELIVERY_REQUEUE_AFTER = 60
    lost = emit(personas)
    HostDelivery.objects.filter(seq=lost.seq).update(
        enqueued_at=timezone.now() - timedelta(minutes=5)
    )
    in_line = emit(personas)
    HostDelivery.objects.filter(seq=in_line.seq).update(
        enqueued_at=timezone.now() - timedelta(minutes=2)
    )
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    # The queue's oldest task went in 2.5 minutes ago (published as every
    # task is, stamped with its time); a newer one waits behind it.
    current_app.send_task(
        "outbox.purge_delivery_bodies", headers={SENT_AT_HEADER: time.time() - 150}
    )
    current_app.send_task("outbox.purge_delivery_bodies")
    try:
        assert queue_waiting_since() == pytest.approx(time.time() - 150, abs=5)
        assert host_deliveries_sweep() == 1
        assert reload(lost).enqueued_at > timezone.now() - timedelta(seconds=5)
        assert reload(in_line).enqueued_at < timezone.now() - timedelta(seconds=100)
    finally:
        with current_app.connection_for_write() as conn:
            conn.default_channel.client.delete(queue)


def test_a_delivered_row_costs_seven_statements_and_no_lock_on_the_endpoint(
    personas, endpoint, receiver
):
    """Found by bench/load.py: forwarding was too slow for half the receiver's
    peak. A delivered row took eleven statements, two of them locking the
    endpoint's one row, so a host's senders queued behind each other. Now:
    the claim (three), one read of the row with its endpoint, the attempt,
    the row, and the live log row's attempts; the endpoint is written only
    to end a run of failures or when its last success is older than
    SUCCESS_STAMP_EVERY."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    first, second = emit(personas), emit(personas)
    assert host_delivery_send(seq=first.seq) == "delivered"
    stamped = HostEndpoint.objects.get().last_success_at
    assert stamped is not None
    with CaptureQueriesContext(connection) as queries:
        assert host_delivery_send(seq=second.seq) == "delivered"
    statements = [q["sql"] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == 7, "\n".join(statements)
    assert not [sql for sql in statements if "FOR UPDATE" in sql or "FOR NO KEY UPDATE" in sql]
    assert not [sql for sql in statements if sql.startswith('UPDATE "outbox_hostendpoint"')]
    assert HostEndpoint.objects.get().last_success_at == stamped
    assert reload(second).status == DeliveryStatus.DELIVERED and reload(second).attempts == 1
    assert [r["webhook_id"] for r in receiver.accepted()] == [first.webhook_id, second.webhook_id]


def test_a_success_after_failures_clears_the_run_of_failures_at_once(
    personas, endpoint, receiver, settings
):
    settings.HOST_DELIVERY_RETRY_SCHEDULE = [0]
    receiver.responses = [(500, {})]
    first, second = emit(personas), emit(personas)
    assert host_delivery_send(seq=first.seq) == "retry"
    assert HostEndpoint.objects.get().failing_since is not None
    assert host_delivery_send(seq=second.seq) == "delivered"
    assert HostEndpoint.objects.get().failing_since is None
    assert host_delivery_send(seq=first.seq) == "delivered"
    assert reload(first).attempts == 2


def test_two_senders_never_send_one_row_at_once(personas, endpoint, receiver):
    delivery = emit(personas)
    HostDelivery.objects.filter(seq=delivery.seq).update(
        claimed_until=timezone.now() + timedelta(minutes=1)
    )
    assert host_delivery_send(seq=delivery.seq) == "skipped"
    assert receiver.hits == 0


def test_unknown_types_are_refused(personas):
    with pytest.raises(ValueError):
        host_event_emit(host_id=personas.acme.id, type="nonsense", data={})
