"""Deliveries the receiver refuses that still owe something: one for a
subscription we ended (410: the server is asked to unsubscribe again), and
one over the size limit (413: the host hears an event may be missing)."""

from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction

from subscriptions.models import RUNNING_STATUSES, Subscription, UnsubscribeState
from subscriptions.services.common import gap_flag
from subscriptions.services.receiver.answers import SERVER
from subscriptions.services.unsubscribe import unsubscribe_owed
from switchboard.mcp import dialects
from switchboard.models import McpServer


def oversize_refused(*, token: str, webhook_id: str) -> None:
    """We answered 413 to a delivery: the server will not send that event
    again (SEP-3415 §"Webhook security"), so the host hears that one may be missing — once per
    delivery (the gap record is keyed on its webhook-id)."""
    sub = (
        Subscription.objects.select_related("user", "server")
        .filter(token=token, status__in=RUNNING_STATUSES)
        .first()
    )
    if sub is None:
        return
    try:
        with transaction.atomic():
            gap_flag(
                sub,
                cursor=sub.cursor,
                source="too_large",
                reason="too_large",
                key=f"too_large:{webhook_id}" if webhook_id else None,
                actor=SERVER,
                summary=f"A delivery of {sub.event_name} was over "
                f"{settings.WEBHOOK_MAX_BODY_BYTES} bytes and refused (413): an event may be missing",
            )
    except IntegrityError:
        return  # this delivery was flagged already


def tombstone_delivery(sub: Subscription) -> None:
    """A delivery for a subscription we ended. On a SEP-3415 server a 410
    stops only that delivery, not the subscription (SEP-3415 §"Webhook event delivery"), so the
    server is asked to unsubscribe again unless that is already under way."""
    if sub.unsubscribe_state == UnsubscribeState.PENDING:
        return
    server = McpServer.objects.filter(pk=sub.server_id).first()
    if server is None or server.events_dialect != dialects.SEP or not server.url:
        return
    with transaction.atomic():
        unsubscribe_owed([sub.pk])
