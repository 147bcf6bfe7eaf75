"""Writes of the outbox: forwarding rows to the host's endpoint, and managing
that endpoint.

1. ``host_event_emit`` wrote a ``pending`` row (due now) and enqueued
   ``send_host_delivery`` after commit.
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
from outbox.emit import enqueue_after_commit, host_event_emit
from outbox.models import (
    DeliveryAttempt,
    DeliveryStatus,
    EndpointStatus,
    HostDelivery,
    HostEndpoint,
)
from outbox.signing import sign_outbound, webhook_secret_new
from switchboard.actors import Actor
from switchboard.crypto import encrypt_text
from switchboard.errors import Conflict, Invalid, NotFound
from switchboard.mcp.netguard import BlockedTarget, check_url, httpx_transport
from switchboard.models import Host
from switchboard.queue import enqueue
from switchboard.services.audit import audit_record

log = logging.getLogger(__name__)

SYSTEM = Actor.system("forwarding")
# Rows that a sweep may send: not yet delivered and not waiting on something else.
_RECOVERABLE = (DeliveryStatus.FAILED, DeliveryStatus.NO_ENDPOINT, DeliveryStatus.DISABLED)


# --- the endpoint ------------------------------------------------------------------


def _check_endpoint_url(url: str) -> None:
    if not url or len(url) > 2000:
        raise Invalid("url must be 1–2000 characters", field="url")
    try:
        check_url(url)
    except BlockedTarget as blocked:
        raise Invalid(
            f"url is not allowed: {blocked.message}", field="url", code="blocked_target"
        ) from None


@transaction.atomic
def host_endpoint_set(*, host: Host, url: str, actor: Actor) -> tuple[HostEndpoint, str]:
    """Set the endpoint URL with a fresh secret (returned once); the previous
    secret keeps signing for HOST_ENDPOINT_SECRET_GRACE."""
    _check_endpoint_url(url)
    secret = webhook_secret_new()
    now = timezone.now()
    endpoint = HostEndpoint.objects.select_for_update().filter(host=host).first()
    if endpoint is None:
        endpoint = HostEndpoint(host=host, url=url, secret_encrypted=encrypt_text(secret))
    else:
        endpoint.previous_secret_encrypted = endpoint.secret_encrypted
        endpoint.previous_secret_until = now + timedelta(
            seconds=settings.HOST_ENDPOINT_SECRET_GRACE
        )
        endpoint.url = url
        endpoint.secret_encrypted = encrypt_text(secret)
    endpoint.save()
    audit_record(
        host_id=host.id,
        kind="host_endpoint.set",
        actor=actor,
        summary=f"Host endpoint set to {url[:200]} with a new signing secret",
        subject_type="host_endpoint",
        subject_id=host.id,
    )
    live.endpoint_changed(host.id)
    return endpoint, secret


def host_endpoint_get(*, host: Host) -> HostEndpoint:
    endpoint = HostEndpoint.objects.filter(host=host).first()
    if endpoint is None:
        raise NotFound("no endpoint is configured for this host", code="no_endpoint")
    return endpoint


@transaction.atomic
def host_endpoint_enable(*, host: Host, actor: Actor) -> HostEndpoint:
    """Re-enable; what piled up while disabled is sent again."""
    endpoint = HostEndpoint.objects.select_for_update().filter(host=host).first()
    if endpoint is None:
        raise NotFound("no endpoint is configured for this host", code="no_endpoint")
    if endpoint.status == EndpointStatus.ACTIVE:
        return endpoint
    endpoint.status = EndpointStatus.ACTIVE
    endpoint.disabled_reason = ""
    endpoint.disabled_at = None
    endpoint.failing_since = None
    endpoint.save()
    _requeue(HostDelivery.objects.filter(host=host, status=DeliveryStatus.DISABLED))
    audit_record(
        host_id=host.id,
        kind="host_endpoint.enabled",
        actor=actor,
        summary="Host endpoint re-enabled; deliveries held while it was disabled are being sent",
        subject_type="host_endpoint",
        subject_id=host.id,
    )
    live.endpoint_changed(host.id)
    return endpoint


def _endpoint_disable(endpoint: HostEndpoint, *, reason: str) -> None:
    """Inside a transaction: stop sending, tell the host's staff."""
    endpoint.status = EndpointStatus.DISABLED
    endpoint.disabled_reason = reason[:200]
    endpoint.disabled_at = timezone.now()
    endpoint.save()
    HostDelivery.objects.filter(host_id=endpoint.host_id, status=DeliveryStatus.PENDING).update(
        status=DeliveryStatus.DISABLED, claimed_until=None
    )
    audit_record(
        host_id=endpoint.host_id,
        kind="host_endpoint.disabled",
        actor=SYSTEM,
        summary=f"Host endpoint disabled: {reason[:200]}. Deliveries wait until it is re-enabled.",
        subject_type="host_endpoint",
        subject_id=endpoint.host_id,
        detail={"reason": reason[:200]},
    )
    live.endpoint_changed(endpoint.host_id)


@transaction.atomic
def host_endpoint_test(*, host: Host, actor: Actor) -> HostDelivery:
    host_endpoint_get(host=host)
    delivery = host_event_emit(host_id=host.id, type="ping", data={})
    audit_record(
        host_id=host.id,
        kind="host_endpoint.tested",
        actor=actor,
        summary="Test ping sent to the host endpoint",
        subject_type="host_delivery",
        subject_id=delivery.public_id,
    )
    return delivery


# --- resend and recover -------------------------------------------------------------


def _requeue(rows) -> int:
    """Make rows due now (attempts restart) and enqueue them after commit, in order."""
    now = timezone.now()
    seqs = list(rows.order_by("seq").values_list("seq", flat=True))
    if not seqs:
        return 0
    HostDelivery.objects.filter(seq__in=seqs).update(
        status=DeliveryStatus.PENDING,
        attempts=0,
        next_attempt_at=now,
        enqueued_at=now,
        claimed_until=None,
    )
    enqueue_after_commit(seqs)
    return len(seqs)


@transaction.atomic
def host_delivery_resend(*, delivery: HostDelivery, actor: Actor) -> HostDelivery:
    """Send one delivery again (same webhook-id), whatever its status."""
    endpoint = host_endpoint_get(host=delivery.host)
    if endpoint.status != EndpointStatus.ACTIVE:
        raise Conflict("the endpoint is disabled; enable it first", code="endpoint_disabled")
    _requeue(HostDelivery.objects.filter(seq=delivery.seq))
    audit_record(
        host_id=delivery.host_id,
        kind="host_delivery.resent",
        actor=actor,
        summary=f"Delivery {delivery.public_id} ({delivery.type}) queued to be sent again",
        subject_type="host_delivery",
        subject_id=delivery.public_id,
    )
    delivery.refresh_from_db()
    return delivery


@transaction.atomic
def host_deliveries_recover(*, host: Host, since: datetime, actor: Actor) -> int:
    """Send again every delivery since ``since`` that did not arrive (failed,
    recorded without an endpoint, or held by a disabled endpoint)."""
    endpoint = host_endpoint_get(host=host)
    if endpoint.status != EndpointStatus.ACTIVE:
        raise Conflict("the endpoint is disabled; enable it first", code="endpoint_disabled")
    count = _requeue(
        HostDelivery.objects.filter(host=host, status__in=_RECOVERABLE, created_at__gte=since)
    )
    audit_record(
        host_id=host.id,
        kind="host_delivery.recovered",
        actor=actor,
        summary=f"{count} undelivered deliveries since {since:%Y-%m-%d %H:%M:%S} queued again",
        subject_type="host_endpoint",
        subject_id=host.id,
        detail={"since": since.isoformat(), "count": count},
    )
    return count


def held_deliveries_release(*, host_id: str, stream: str) -> int:
    """When a paused stream resumes (inside its transaction): what was held is
    sent, in order, by one task so the order survives."""
    now = timezone.now()
    endpoint_status = (
        HostEndpoint.objects.filter(host_id=host_id).values_list("status", flat=True).first()
    )
    held = HostDelivery.objects.filter(host_id=host_id, stream=stream, status=DeliveryStatus.HELD)
    if endpoint_status is None:
        return held.update(status=DeliveryStatus.NO_ENDPOINT)
    if endpoint_status == EndpointStatus.DISABLED:
        return held.update(status=DeliveryStatus.DISABLED)
    seqs = list(held.order_by("seq").values_list("seq", flat=True))
    HostDelivery.objects.filter(seq__in=seqs).update(
        status=DeliveryStatus.PENDING, next_attempt_at=now, enqueued_at=now
    )

    if seqs:
        enqueue("outbox.send_host_deliveries_in_order", seqs)
    return len(seqs)


def stream_payloads_erase(*, streams: list[str], reason: str) -> None:
    """For erasure (a user deleted): rows of these streams not yet sent are
    cancelled, and the event data in every ``event.received`` body is
    dropped; the rows themselves stay, so the log still shows what happened."""
    if not streams:
        return
    rows = HostDelivery.objects.filter(stream__in=streams)
    rows.filter(
        status__in=[
            DeliveryStatus.PENDING,
            DeliveryStatus.HELD,
            DeliveryStatus.NO_ENDPOINT,
            DeliveryStatus.DISABLED,
        ]
    ).update(status=DeliveryStatus.FAILED, last_error_category=reason)
    for delivery in rows.filter(type="event.received").only("seq", "body"):
        body = delivery.body
        event = body.get("data", {}).get("event")
        if isinstance(event, dict) and "data" in event:
            event["data"] = None
            HostDelivery.objects.filter(seq=delivery.seq).update(body=body)


# --- sending ------------------------------------------------------------------------

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
        delivery = HostDelivery.objects.select_for_update().get(seq=outcome.seq)
        endpoint = HostEndpoint.objects.select_for_update().get(host_id=delivery.host_id)
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
            _endpoint_disable(endpoint, reason="the endpoint answered 410 Gone")
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
            _endpoint_disable(
                endpoint,
                reason=f"deliveries have failed since {endpoint.failing_since:%Y-%m-%d %H:%M} UTC",
            )
        live.delivery_changed(delivery)
        return "failed" if delivery.status == DeliveryStatus.FAILED else "retry"


def host_deliveries_sweep(*, limit: int = 500) -> int:
    """Beat: enqueue due rows whose task is not (or no longer) on the broker."""
    now = timezone.now()
    lost_before = now - timedelta(seconds=settings.HOST_DELIVERY_REQUEUE_AFTER)
    due = (
        HostDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=lost_before))
        .order_by("next_attempt_at")
        .values_list("seq", flat=True)[:limit]
    )
    picked = []
    for seq in due:
        # Conditional, so two beat ticks (or two beats) never both enqueue it.
        if (
            HostDelivery.objects.filter(seq=seq, status=DeliveryStatus.PENDING)
            .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=lost_before))
            .update(enqueued_at=now)
        ):
            picked.append(seq)
    enqueue_after_commit(picked)
    return len(picked)
