"""Rows made due again (requeue), a paused stream's held rows released, a
stream's unsent payloads erased, rows a forward gate refused at sending
(``outbox.gates``) withheld, and pulled rows put to the same gates."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from outbox.emit import enqueue_after_commit
from outbox.gates import Refusal, forward_refusals
from outbox.models import (
    DeliveryAttempt,
    DeliveryStatus,
    EndpointStatus,
    HostDelivery,
    HostEndpoint,
)
from switchboard.errors import Unavailable
from switchboard.queue import enqueue


def requeue(rows) -> int:
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


# Rows not sent yet, whatever keeps them (due, paused, no endpoint, disabled).
_UNSENT = (
    DeliveryStatus.PENDING,
    DeliveryStatus.HELD,
    DeliveryStatus.NO_ENDPOINT,
    DeliveryStatus.DISABLED,
)


def stream_events_withdraw(*, streams: list[str], reason: str) -> int:
    """Events of these streams received but not sent yet are never sent (the
    user's consent was withdrawn, or the server blocked, after their
    receipt): failed with ``reason`` as their category, their event data
    dropped so neither a resend nor pull delivery hands it out. Control
    notices (gaps, status changes) still go. Call it inside the transaction
    of the change; a row a worker is posting at that instant still goes."""
    if not streams:
        return 0
    rows = HostDelivery.objects.filter(
        stream__in=streams, type="event.received", status__in=_UNSENT
    )
    withdrawn = 0
    for delivery in rows.select_for_update(no_key=True).only("seq", "body"):
        HostDelivery.objects.filter(seq=delivery.seq).update(
            status=DeliveryStatus.FAILED,
            last_error_category=reason[:40],
            body=_without_event_data(delivery.body),
        )
        withdrawn += 1
    return withdrawn


def _events_of(body: dict) -> list:
    data = body.get("data", {})
    return data.get("events") if isinstance(data.get("events"), list) else [data.get("event")]


def _without_event_data(body: dict) -> dict:
    """The body with its events' data dropped (one event, or a digest's)."""
    for event in _events_of(body):
        if isinstance(event, dict) and "data" in event:
            event["data"] = None
    return body


def _event_data_kept(body: dict) -> bool:
    return any(
        isinstance(event, dict) and event.get("data") is not None for event in _events_of(body)
    )


def pulled_deliveries_check(rows: Sequence[HostDelivery]) -> list[HostDelivery]:
    """Rows about to be handed to a host that pulls them, put to the forward
    gates (``outbox.gates``) as the sender puts rows before a POST: pulling
    is forwarding, and a subscription's events go only while the user's
    consent holds then, whatever happened since their receipt. One call per
    row type for the page (two statements for events, however many rows).

    A final refusal withdraws the row as the sender does (not sent yet:
    failed, its reason as the category, its event data dropped); whatever
    its status, it is handed out without its event data. A refusal that is
    not final (consent could not be read) hands out nothing: 503 with the
    refusal's reason as the code (``consent_unavailable``), no row changed,
    so the same page is there to pull later."""
    refusals = forward_refusals([row for row in rows if _event_data_kept(row.body)])
    waiting = sorted({refusal.reason for refusal in refusals.values() if not refusal.final})
    if waiting:
        raise Unavailable(
            f"These deliveries could not be checked before they are handed over "
            f"({', '.join(waiting)}); nothing was handed over and nothing is lost: "
            "pull again later.",
            code=waiting[0],
        )
    if not refusals:
        return list(rows)
    with transaction.atomic():
        for row in rows:
            refusal = refusals.get(row.seq)
            if refusal is None:
                continue
            row.body = _without_event_data(row.body)
            HostDelivery.objects.filter(seq=row.seq, status__in=_UNSENT).update(
                status=DeliveryStatus.FAILED,
                last_error_category=refusal.reason[:40],
                body=row.body,
            )
    return list(rows)


@transaction.atomic
def deliveries_withhold(
    *, refusals: dict[int, Refusal], rows: dict[int, HostDelivery], attempts: dict[int, int]
) -> None:
    """Rows claimed for sending that a forward gate refused (``outbox.gates``):
    nothing was sent, so their opened attempts go. A final refusal fails the
    row (its reason as the category, its event data dropped); any other
    leaves it pending, due again after the schedule's first step."""
    if not refusals:
        return
    later = timezone.now() + timedelta(seconds=settings.HOST_DELIVERY_RETRY_SCHEDULE[0])
    for seq, refusal in refusals.items():
        if refusal.final:
            HostDelivery.objects.filter(seq=seq).update(
                status=DeliveryStatus.FAILED,
                last_error_category=refusal.reason[:40],
                claimed_until=None,
                body=_without_event_data(rows[seq].body),
            )
        else:
            HostDelivery.objects.filter(seq=seq).update(
                last_error_category=refusal.reason[:40], claimed_until=None, next_attempt_at=later
            )
    DeliveryAttempt.objects.filter(
        id__in=[attempts[seq] for seq in refusals if seq in attempts], completed_at__isnull=True
    ).delete()
