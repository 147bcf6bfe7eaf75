"""Sending outbox rows to the host's endpoint.

1. ``host_event_emit`` wrote a ``pending`` row (due now) and handed it to
   the publisher after commit (``outbox.publish``: ``send_host_delivery``,
   or ``send_host_deliveries`` for the rows of a burst).
2. ``host_delivery_send`` claims the row with a conditional UPDATE
   (``claimed_until``: one POST's timeout plus a margin) and opens the
   attempt in the log in the same transaction, POSTs it signed (Standard
   Webhooks, every valid secret), then completes the attempt (status code,
   duration, error category; never the response body) and either marks the
   row delivered or sets the next due time from HOST_DELIVERY_RETRY_SCHEDULE
   (or ``Retry-After``, capped). A short wait is a broker countdown, so the
   first retry lands on time. Redirects are not followed; only 2xx is
   success; 410 disables the endpoint; an endpoint failing for
   HOST_ENDPOINT_DISABLE_AFTER is disabled with a notice to the host's staff.
   A database connection lost after the POST is reconnected to record the
   answer: the row is not left pending to be sent twice.
3. Beat runs ``host_deliveries_sweep`` every HOST_DELIVERY_SWEEP_EVERY: rows
   that are due and unclaimed (or whose sender's claim ran out), and not
   enqueued within HOST_DELIVERY_REQUEUE_AFTER (the task was lost: worker
   killed, broker restarted), are enqueued again. A second task for a row is
   harmless: the claim lets one sender through. A retried or re-sent row
   keeps its ``webhook-id``.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.http import parse_http_date_safe

from outbox import live
from outbox.emit import enqueue_after_commit
from outbox.gates import forward_refusals
from outbox.models import (
    DeliveryAttempt,
    DeliveryStatus,
    EndpointStatus,
    HostDelivery,
    HostEndpoint,
)
from outbox.services.clients import clients
from outbox.services.endpoint import endpoint_disable
from outbox.services.rows import deliveries_withhold
from outbox.signing import sign_outbound
from switchboard import metrics, telemetry
from switchboard.mcp.netguard import BlockedTarget, check_url
from switchboard.queue import enqueue, queue_waiting_since
from switchboard.reconnect import StillDisconnected, surviving_reconnects

log = logging.getLogger(__name__)


WORKER_LOST = "worker_lost"
# Seconds a success may leave the endpoint's last_success_at behind (see
# success_to_write).
SUCCESS_STAMP_EVERY = 5.0


def lease_seconds() -> float:
    """How long a sender holds its row: one POST plus a margin. Short, so a
    row whose worker died is sent again soon (see host_deliveries_sweep)."""
    return settings.HOST_DELIVERY_TIMEOUT + settings.HOST_DELIVERY_LEASE_MARGIN


@transaction.atomic
def _claim(seq: int, now: datetime) -> int | None:
    """Take the row for one attempt and open that attempt in the log, in one
    transaction; None if it is not due or someone else holds it. An attempt
    left open by a sender that died is closed as ``worker_lost``."""
    claimed = (
        HostDelivery.objects.filter(
            seq=seq, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
        )
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .update(claimed_until=now + timedelta(seconds=lease_seconds()))
    )
    if not claimed:
        return None
    DeliveryAttempt.objects.filter(delivery_id=seq, completed_at__isnull=True).update(
        completed_at=now, error_category=WORKER_LOST
    )
    return DeliveryAttempt.objects.create(delivery_id=seq).id


def _category(exc: Exception) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return "timeout"
    text = f"{type(exc).__name__} {exc}".lower()
    if "ssl" in text or "certificate" in text or "tls" in text:
        return "tls_error"
    return "connection_refused"


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    moment = parse_http_date_safe(value)
    return max(0.0, moment - time.time()) if moment is not None else None


def post(endpoint: HostEndpoint, delivery: HostDelivery, now: datetime):
    """One attempt: (status code, error category, Retry-After seconds). The
    URL is vetted (and resolved) for every attempt; the connection is kept
    alive between attempts to the same vetted addresses (``clients``)."""
    body = json.dumps(delivery.body, separators=(",", ":"), ensure_ascii=False)
    headers = sign_outbound(
        webhook_id=delivery.webhook_id,
        body=body,
        secrets_=endpoint.signing_secrets(now=now),
    )
    headers["user-agent"] = "Switchboard/1"
    telemetry.inject_headers(headers)  # the host can join the trace that caused it
    try:
        target = check_url(endpoint.url)
    except BlockedTarget:
        return None, "blocked_target", None
    client = clients.get(endpoint.url, target)
    try:
        response = client.post(
            endpoint.url,
            content=body.encode(),
            headers=headers,
            timeout=settings.HOST_DELIVERY_TIMEOUT,
        )
    except httpx.HTTPError as exc:
        return None, _category(exc), None
    code = response.status_code
    if 200 <= code < 300:
        return code, "", None
    category = "http_5xx" if code >= 500 else "http_3xx" if code < 400 else "http_4xx"
    return code, category, _retry_after(response)


@dataclass(frozen=True)
class AttemptOutcome:
    attempt_id: int
    seq: int
    code: int | None
    category: str
    retry_after: float | None
    duration_ms: int


def host_delivery_send(*, seq: int) -> str:
    """Send one outbox row if it is due and nobody else is sending it.

    A database error before the POST propagates (the task retries it: nothing
    was sent). After the POST the answer is recorded whatever it takes
    (``record_surviving_reconnects``), so the row is neither left pending to
    be sent twice nor missing an attempt in the log.
    """
    now = timezone.now()
    attempt_id = _claim(seq, now)
    if attempt_id is None:
        return "skipped"
    # The row, its host and the host's endpoint in one statement.
    delivery = HostDelivery.objects.select_related("host__endpoint").get(seq=seq)
    try:
        endpoint: HostEndpoint | None = delivery.host.endpoint
    except HostEndpoint.DoesNotExist:
        endpoint = None
    if endpoint is not None and endpoint.status == EndpointStatus.ACTIVE:
        refused = forward_refusals([delivery])
        if refused:
            # A gate of the app that owns the row says no, right before the
            # POST (``outbox.gates``): nothing is sent.
            deliveries_withhold(refusals=refused, rows={seq: delivery}, attempts={seq: attempt_id})
            return "withheld"
    if endpoint is None or endpoint.status != EndpointStatus.ACTIVE:
        with transaction.atomic():
            HostDelivery.objects.filter(seq=seq).update(
                status=DeliveryStatus.NO_ENDPOINT if endpoint is None else DeliveryStatus.DISABLED,
                claimed_until=None,
            )
            DeliveryAttempt.objects.filter(id=attempt_id).delete()  # nothing was sent
        return "parked"
    started = time.monotonic()
    code, category, retry_after = post(endpoint, delivery, now)
    outcome = AttemptOutcome(
        attempt_id=attempt_id,
        seq=seq,
        code=code,
        category=category,
        retry_after=retry_after,
        duration_ms=int((time.monotonic() - started) * 1000),
    )
    return record_surviving_reconnects(outcome, delivery=delivery, endpoint=endpoint)


def record_surviving_reconnects(
    outcome: AttemptOutcome, *, delivery: HostDelivery, endpoint: HostEndpoint
) -> str:
    """The POST happened, so its answer is recorded, never re-sent: on a
    fresh connection while the database drops them (a terminated backend, a
    failover), then by a task once the database is back."""
    try:
        return surviving_reconnects(
            lambda: attempt_record(outcome, delivery=delivery, endpoint=endpoint),
            what=f"recording attempt {outcome.attempt_id} of delivery {outcome.seq}",
        )
    except StillDisconnected:
        # Still no database: the broker may be up. A task records it later
        # (retried until the database is back); the claim keeps others off
        # until then, and the open attempt says what happened if all else
        # fails.
        enqueue("outbox.record_attempt", asdict(outcome))
        return "recording_later"


# What recording an attempt may change on the row (never the body, the
# webhook-id, or anything written while the POST was in flight).
_RECORDED_FIELDS = [
    "attempts",
    "last_status_code",
    "last_error_category",
    "claimed_until",
    "status",
    "next_attempt_at",
    "enqueued_at",
    "delivered_at",
]


def attempt_record(
    outcome: AttemptOutcome,
    *,
    delivery: HostDelivery | None = None,
    endpoint: HostEndpoint | None = None,
) -> str:
    """Complete the attempt and move the row on: delivered, retried (on time:
    a short wait is a broker countdown, a long one waits in the row for the
    sweeper), failed, or the endpoint disabled.

    ``delivery`` and ``endpoint`` are the rows as the sender read them before
    the POST (None when a later task records the answer). Only the
    conditional UPDATE of the attempt decides whether this recording counts:
    a second recording of one answer waits for the first's row lock on the
    attempt, then finds it completed and changes nothing."""
    if not outcome.category:
        return _record_success(outcome, delivery=delivery, endpoint=endpoint)
    return _record_failure(outcome)


def attempt_count(outcome: AttemptOutcome, *, type_: str, result: str) -> None:
    """One attempt in the metrics, once its recording commits."""

    def count() -> None:
        metrics.host_deliveries.labels(type=type_, outcome=result).inc()
        metrics.host_delivery_duration.labels(outcome=result).observe(outcome.duration_ms / 1000)

    metrics.after_commit(count)


def _complete_attempt(outcome: AttemptOutcome, now: datetime) -> bool:
    return bool(
        DeliveryAttempt.objects.filter(id=outcome.attempt_id, completed_at__isnull=True).update(
            completed_at=now,
            status_code=outcome.code,
            duration_ms=outcome.duration_ms,
            error_category=outcome.category,
        )
    )


def success_to_write(endpoint: HostEndpoint | None, now: datetime) -> bool:
    """Whether a success must be written on the endpoint: always when it ends a
    run of failures (``failing_since``), else once per SUCCESS_STAMP_EVERY.

    Why: every success used to lock and write the endpoint's one row, so the
    senders of a host queued behind each other on it, and a write per row
    bought nothing the health panel shows (``last_success_at`` to the
    second). The price: ``last_success_at`` may be that much behind, and a
    failure recorded while this POST was in flight (after the sender read
    the endpoint) is not cleared by this success but by the next one; if
    none comes, the run of failures counts from that failure, at most one
    claim lease earlier than it would have."""
    if endpoint is None or endpoint.failing_since is not None or endpoint.last_success_at is None:
        return True
    return now - endpoint.last_success_at >= timedelta(seconds=SUCCESS_STAMP_EVERY)


def _record_success(
    outcome: AttemptOutcome, *, delivery: HostDelivery | None, endpoint: HostEndpoint | None
) -> str:
    """Three statements at most, none of them a read: the attempt, the
    endpoint (see ``success_to_write``), the row. No lock is taken first:
    the sender holds the row's claim, and the attempt's UPDATE is the guard."""
    now = timezone.now()
    if delivery is None:
        delivery = HostDelivery.objects.get(seq=outcome.seq)
    with transaction.atomic():
        if not _complete_attempt(outcome, now):
            return "already_recorded"  # a second recording of one answer changes nothing
        if success_to_write(endpoint, now):
            # Before the row: the order the failure path takes its locks in.
            HostEndpoint.objects.filter(host_id=delivery.host_id).update(
                last_success_at=now, failing_since=None, updated_at=now
            )
        written = delivered_values(outcome.code, now)
        HostDelivery.objects.filter(seq=outcome.seq).update(attempts=F("attempts") + 1, **written)
        delivered_in_memory(delivery, written)
        live.delivery_changed(delivery)
        attempt_count(outcome, type_=delivery.type, result="delivered")
    return "delivered"


def delivered_values(code: int | None, now: datetime) -> dict:
    """What a success writes on its row, besides counting the attempt."""
    return {
        "status": DeliveryStatus.DELIVERED,
        "delivered_at": now,
        "next_attempt_at": None,
        "last_status_code": code,
        "last_error_category": "",
        "claimed_until": None,
    }


def delivered_in_memory(delivery: HostDelivery, written: dict) -> None:
    """The row as written, for the live log (no read back)."""
    for field, value in written.items():
        setattr(delivery, field, value)
    delivery.attempts += 1


def _record_failure(outcome: AttemptOutcome) -> str:
    """A failure takes the row and the endpoint's locks: the run of failures
    (``failing_since``) and the disable rules read what they write."""
    now = timezone.now()
    code, category = outcome.code, outcome.category
    with transaction.atomic():
        delivery = HostDelivery.objects.select_for_update(no_key=True).get(seq=outcome.seq)
        endpoint = HostEndpoint.objects.select_for_update(no_key=True).get(host_id=delivery.host_id)
        if not _complete_attempt(outcome, now):
            return "already_recorded"  # a second recording of one answer changes nothing
        delivery.attempts += 1
        delivery.last_status_code = code
        delivery.last_error_category = category
        delivery.claimed_until = None
        endpoint.last_failure_at = now
        endpoint.failing_since = endpoint.failing_since or now
        endpoint.save(update_fields=["last_failure_at", "failing_since", "updated_at"])
        schedule = settings.HOST_DELIVERY_RETRY_SCHEDULE
        if code == 410:
            delivery.status = DeliveryStatus.DISABLED
            delivery.next_attempt_at = None
            delivery.save(update_fields=_RECORDED_FIELDS)
            attempt_count(outcome, type_=delivery.type, result="gave_up")
            endpoint_disable(endpoint, reason="the endpoint answered 410 Gone")
            return "disabled"
        wait = None
        if category == "blocked_target" or delivery.attempts > len(schedule):
            delivery.status = DeliveryStatus.FAILED
            delivery.next_attempt_at = None
        else:
            wait = schedule[delivery.attempts - 1]
            if outcome.retry_after is not None:
                wait = max(wait, min(outcome.retry_after, settings.HOST_DELIVERY_RETRY_AFTER_MAX))
            delivery.next_attempt_at = now + timedelta(seconds=wait)
            # Counted as enqueued at its due time: the sweeper looks again only
            # if nobody has taken it by then plus HOST_DELIVERY_REQUEUE_AFTER.
            delivery.enqueued_at = (
                delivery.next_attempt_at if wait <= settings.HOST_DELIVERY_COUNTDOWN_MAX else None
            )
        delivery.save(update_fields=_RECORDED_FIELDS)
        gave_up = delivery.status == DeliveryStatus.FAILED
        attempt_count(outcome, type_=delivery.type, result="gave_up" if gave_up else "failed")
        if wait is not None and wait <= settings.HOST_DELIVERY_COUNTDOWN_MAX:
            enqueue("outbox.send_host_delivery", delivery.seq, countdown=wait)
        if now - endpoint.failing_since >= timedelta(seconds=settings.HOST_ENDPOINT_DISABLE_AFTER):
            endpoint_disable(
                endpoint,
                reason=f"deliveries have failed since {endpoint.failing_since:%Y-%m-%d %H:%M} UTC",
            )
        live.delivery_changed(delivery)
        return "failed" if delivery.status == DeliveryStatus.FAILED else "retry"


def host_deliveries_sweep(*, limit: int = 500) -> int:
    """Beat: enqueue due rows whose task is not (or no longer) on the broker.

    Rows never enqueued are enqueued at once. A row enqueued earlier counts
    as lost when it was enqueued more than HOST_DELIVERY_REQUEUE_AFTER
    before the oldest task still waiting in the queue was published
    (``queue_waiting_since``; now when the queue is empty): the queue is
    first in, first out, so its task has left the queue by then, and the
    row is still due and unclaimed, so no worker has it.

    Why not simply "enqueued more than HOST_DELIVERY_REQUEUE_AFTER ago":
    behind a backlog every waiting row looks like that, and each sweep added
    a task per waiting row, growing the queue faster than the worker
    emptied it (found by ``bench/load.py``). Why not "only while the queue
    is empty" (the first fix): a steady load that never lets the queue
    empty would keep a lost task from ever being sent again. With the
    queue's age, a lost task is sent again HOST_DELIVERY_REQUEUE_AFTER after
    the queue has moved past it, however long the queue stays busy.

    Sent twice all the same, harmlessly (the claim lets one sender through):
    a row whose publish waited in ``outbox.publish`` for longer than
    HOST_DELIVERY_REQUEUE_AFTER, or whose task a worker has reserved
    (prefetch) but not started for that long. Not sent again: while the
    oldest waiting task carries no stamp (published by something else),
    the queue's age is unknown and taken as forever, until it is consumed.
    When the broker cannot say, the age is taken as nil (send what may be
    lost; the broker is likely refusing sends too)."""
    now = timezone.now()
    since = queue_waiting_since()
    waiting_since = now if since is None else min(now, datetime.fromtimestamp(since, tz=UTC))
    lost_before = waiting_since - timedelta(seconds=settings.HOST_DELIVERY_REQUEUE_AFTER)
    unsent = Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=lost_before)
    due = (
        HostDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .filter(unsent)
        .order_by("next_attempt_at")
        .values_list("seq", flat=True)[:limit]
    )
    picked = []
    for seq in due:
        # Conditional, so two beat ticks (or two beats) never both enqueue it.
        if (
            HostDelivery.objects.filter(seq=seq, status=DeliveryStatus.PENDING)
            .filter(unsent)
            .update(enqueued_at=now)
        ):
            picked.append(seq)
    enqueue_after_commit(picked)
    return len(picked)
