"""An event delivered to the receiver: checked, stored once per ``eventId``
with its cursor and its outbox row, then shown on the live pages.

What it writes, whichever way: the ``ReceivedEvent`` (``digest_state``
``waiting`` when it goes in a digest); on the subscription the last event
time, the cursor (unless an older event), the filter's count when the host's
filter holds it back; and, when it passes the filter and is not a digest's,
the ``event.received`` outbox row (``held`` while the subscription is
paused). A duplicate writes nothing and is answered 200.

On PostgreSQL that is one statement (``sql.event_store``). A suspended
subscription (its status changes back: ledger, notice, pages) and SQLite
take the general path: one transaction through the ORM.
"""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction

from outbox.emit import enqueue_after_commit, host_delivery_unsaved
from outbox.models import DeliveryStatus, HostDelivery
from outbox.signing import InboundHeaders
from subscriptions import live
from subscriptions.models import (
    DigestState,
    ReceivedEvent,
    ReceivedKind,
    Subscription,
    SubscriptionStatus,
)
from subscriptions.services.common import (
    running_status,
    status_changed,
    subscription_emit,
    subscription_emit_spec,
)
from subscriptions.services.filters import event_passes
from subscriptions.services.intake import digest_state_for, event_for_host
from subscriptions.services.intake import occurred_at as occurred_at_of
from subscriptions.services.receiver.answers import (
    MAX_ID,
    SERVER,
    Answer,
    accepted,
    duplicate,
    error,
    looked_up_host_data,
)
from subscriptions.services.receiver.sql import Recorded, event_recorded, event_store
from switchboard.sql_rows import one_statement_available


def event(sub: Subscription, parsed: InboundHeaders, payload: dict, now: datetime) -> Answer:
    event_id = payload.get("eventId")
    name = payload.get("name")
    cursor = payload.get("cursor")
    if not isinstance(event_id, str) or not event_id or len(event_id) > MAX_ID:
        return error(400, "malformed_body", "eventId must be a non-empty string")
    if name != sub.event_name:
        return error(400, "malformed_body", "name does not match the subscription's event type")
    if cursor is not None and not isinstance(cursor, str):
        return error(400, "malformed_body", "cursor must be a string or null")
    occurred_at = occurred_at_of(payload.get("timestamp")) or now
    passes = event_passes(sub.filter, payload)
    received = ReceivedEvent(
        subscription=sub,
        kind=ReceivedKind.EVENT,
        webhook_id=parsed.webhook_id[:MAX_ID],
        event_id=event_id,
        body=payload,
        cursor=cursor,
        occurred_at=occurred_at,
        received_at=now,
        digest_state=digest_state_for(sub.channel, passes),
    )
    recorded = Recorded(
        subscription_id=sub.pk,
        cursor=cursor,
        occurred_at=occurred_at,
        now=now,
        # Held back by the host's filter: stored (a retry is a duplicate), counted.
        filtered=not passes,
        remote_id=parsed.subscription_id[:MAX_ID],
    )
    forwarded = passes and received.digest_state != DigestState.WAITING
    data = {**looked_up_host_data(sub), "event": event_for_host(payload)} if forwarded else None
    try:
        if one_statement_available() and sub.status != SubscriptionStatus.SUSPENDED:
            stored = _stored_in_one_statement(sub, received, recorded, data, now)
        else:
            stored = _stored_in_a_transaction(sub, received, recorded, data)
    except IntegrityError:
        return duplicate()
    if not stored:
        return duplicate()
    if not passes:
        return accepted()
    sub.last_event_at = now
    return Answer(200, {"status": "accepted"}, page_updates=live.event_page_updates(sub, received))


def _stored_in_one_statement(
    sub: Subscription,
    received: ReceivedEvent,
    recorded: Recorded,
    data: dict | None,
    now: datetime,
) -> bool:
    delivery: HostDelivery | None = None
    if data is not None:
        delivery = host_delivery_unsaved(
            subscription_emit_spec(sub, type="event.received", data=data),
            endpoint_status=sub.endpoint_status,  # type: ignore[attr-defined]  # from the lookup
            now=now,
        )
    if not event_store(received, recorded, delivery):
        return False
    if delivery is not None and delivery.status == DeliveryStatus.PENDING:
        enqueue_after_commit([delivery.seq])
    return True


def _stored_in_a_transaction(
    sub: Subscription, received: ReceivedEvent, recorded: Recorded, data: dict | None
) -> bool:
    """The general path; a duplicate raises ``IntegrityError`` (a unique
    constraint), which rolls it all back."""
    with transaction.atomic():
        received.save(force_insert=True)
        event_recorded(recorded)
        if data is not None:
            subscription_emit(
                sub,
                type="event.received",
                data=data,
                endpoint_status=sub.endpoint_status,  # type: ignore[attr-defined]
            )
        if sub.status == SubscriptionStatus.SUSPENDED:
            _delivery_resumed(sub)
    return True


def _delivery_resumed(sub: Subscription) -> None:
    """The server had stopped delivering (a refresh said so); this event shows
    it delivers again."""
    locked = (
        Subscription.objects.select_for_update(no_key=True)
        .select_related("user", "server")
        .get(pk=sub.pk)
    )
    if locked.status != SubscriptionStatus.SUSPENDED:
        return
    locked.status = running_status(locked)
    locked.last_error = ""
    locked.last_error_message = ""
    locked.save(update_fields=["status", "last_error", "last_error_message", "updated_at"])
    status_changed(
        locked, previous=SubscriptionStatus.SUSPENDED, actor=SERVER, reason="delivery_resumed"
    )
