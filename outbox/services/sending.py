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
from datetime import datetime, timedelta

import httpx
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.http import parse_http_date_safe

from outbox import live
from outbox.emit import enqueue_after_commit
from outbox.models import (
    DeliveryAttempt,
    DeliveryStatus,
    EndpointStatus,
    HostDelivery,
    HostEndpoint,
)
from outbox.services.endpoint import endpoint_disable
from outbox.signing import sign_outbound
from switchboard.mcp.netguard import BlockedTarget, check_url, httpx_transport
from switchboard.queue import broker_backlog, enqueue

log = logging.getLogger(__name__)


WORKER_LOST = "worker_lost"
# Pauses between tries of the write that completes an attempt when the
# database connection dropped after the POST (a terminated backend, a
# failover): the POST happened, so the answer must be recorded, not re-sent.
_RECORD_PAUSES = (0.0, 0.2, 0.5, 1.0, 2.0, 4.0)


def _lease() -> float:
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
        .update(claimed_until=now + timedelta(seconds=_lease()))
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


def _post(endpoint: HostEndpoint, delivery: HostDelivery, now: datetime):
    """One attempt: (status code, error category, Retry-After seconds)."""
    body = json.dumps(delivery.body, separators=(",", ":"), ensure_ascii=False)
    headers = sign_outbound(
        webhook_id=delivery.webhook_id,
        body=body,
        secrets_=endpoint.signing_secrets(now=now),
    )
    headers["user-agent"] = "Switchboard/1"
    try:
        target = check_url(endpoint.url)
    except BlockedTarget:
        return None, "blocked_target", None
    try:
        with httpx.Client(
            transport=httpx_transport(target),
            timeout=settings.HOST_DELIVERY_TIMEOUT,
            follow_redirects=False,
            trust_env=False,
        ) as client:
            response = client.post(endpoint.url, content=body.encode(), headers=headers)
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
    (``_record_surviving_reconnects``), so the row is neither left pending to
    be sent twice nor missing an attempt in the log.
    """
    now = timezone.now()
    attempt_id = _claim(seq, now)
    if attempt_id is None:
        return "skipped"
    delivery = HostDelivery.objects.get(seq=seq)
    endpoint = HostEndpoint.objects.filter(host_id=delivery.host_id).first()
    if endpoint is None or endpoint.status != EndpointStatus.ACTIVE:
        with transaction.atomic():
            HostDelivery.objects.filter(seq=seq).update(
                status=DeliveryStatus.NO_ENDPOINT if endpoint is None else DeliveryStatus.DISABLED,
                claimed_until=None,
            )
            DeliveryAttempt.objects.filter(id=attempt_id).delete()  # nothing was sent
        return "parked"
    started = time.monotonic()
    code, category, retry_after = _post(endpoint, delivery, now)
    outcome = AttemptOutcome(
        attempt_id=attempt_id,
        seq=seq,
        code=code,
        category=category,
        retry_after=retry_after,
        duration_ms=int((time.monotonic() - started) * 1000),
    )
    return _record_surviving_reconnects(outcome)


def _record_surviving_reconnects(outcome: AttemptOutcome) -> str:
    for pause in _RECORD_PAUSES:
        time.sleep(pause)
        try:
            return attempt_record(outcome)
        except (OperationalError, InterfaceError):
            log.warning(
                "recording attempt %s of delivery %s: the database connection failed; reconnecting",
                outcome.attempt_id,
                outcome.seq,
                exc_info=True,
            )
            # The broken connection is discarded; the next query opens a new one.
            connection.close()
    # Still no database: the broker may be up. A task records it later
    # (retried until the database is back); the claim keeps others off
    # until then, and the open attempt says what happened if all else fails.
    enqueue("outbox.record_attempt", asdict(outcome))
    return "recording_later"


def attempt_record(outcome: AttemptOutcome) -> str:
    """Complete the attempt and move the row on: delivered, retried (on time:
    a short wait is a broker countdown, a long one waits in the row for the
    sweeper), failed, or the endpoint disabled."""
    now = timezone.now()
    code, category = outcome.code, outcome.category
    with transaction.atomic():
        delivery = HostDelivery.objects.select_for_update(no_key=True).get(seq=outcome.seq)
        endpoint = HostEndpoint.objects.select_for_update(no_key=True).get(host_id=delivery.host_id)
        completed = DeliveryAttempt.objects.filter(
            id=outcome.attempt_id, completed_at__isnull=True
        ).update(
            completed_at=now,
            status_code=code,
            duration_ms=outcome.duration_ms,
            error_category=category,
        )
        if not completed:
            return "already_recorded"  # a second recording of one answer changes nothing
        delivery.attempts += 1
        delivery.last_status_code = code
        delivery.last_error_category = category
        delivery.claimed_until = None
        if not category:
            delivery.status = DeliveryStatus.DELIVERED
            delivery.delivered_at = now
            delivery.next_attempt_at = None
            delivery.save()
            endpoint.last_success_at = now
            endpoint.failing_since = None
            endpoint.save(update_fields=["last_success_at", "failing_since", "updated_at"])
            live.delivery_changed(delivery)
            return "delivered"
        endpoint.last_failure_at = now
        endpoint.failing_since = endpoint.failing_since or now
        endpoint.save(update_fields=["last_failure_at", "failing_since", "updated_at"])
        schedule = settings.HOST_DELIVERY_RETRY_SCHEDULE
        if code == 410:
            delivery.status = DeliveryStatus.DISABLED
            delivery.next_attempt_at = None
            delivery.save()
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
        delivery.save()
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

    A row enqueued more than HOST_DELIVERY_REQUEUE_AFTER ago counts as lost
    only while no task waits in the queue: behind a backlog its task is in
    line, and enqueuing it again would add a task per waiting row at every
    sweep, growing the backlog faster than the worker empties it (found by
    ``bench/load.py``). Rows never enqueued are enqueued at once."""
    now = timezone.now()
    lost_before = now - timedelta(seconds=settings.HOST_DELIVERY_REQUEUE_AFTER)
    unsent = Q(enqueued_at__isnull=True)
    if not broker_backlog():  # 0, or the broker cannot say: send what may be lost
        unsent |= Q(enqueued_at__lt=lost_before)
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
