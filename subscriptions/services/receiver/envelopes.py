"""Control envelopes delivered to the receiver: ``verification`` (answered,
binds the server's id), ``gap`` and ``terminated`` (stored, applied, told to
the host), and a type we do not know (stored and forwarded as it came).

Each is rare next to events, so each is one ORM transaction; a duplicate
(same ``webhook-id``) hits ``received_unique_envelope_webhook_id`` and is
answered 200 with nothing stored or forwarded.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Case, CharField, F, Value, When

from outbox.signing import InboundHeaders
from subscriptions.models import (
    DEAD_STATUSES,
    ReceivedEvent,
    ReceivedKind,
    Subscription,
    SubscriptionStatus,
)
from subscriptions.services.common import (
    host_data,
    status_changed,
    subscription_emit,
    subscription_record,
)
from subscriptions.services.receiver.answers import (
    MAX_ID,
    SERVER,
    Answer,
    accepted,
    duplicate,
    error,
    looked_up_host_data,
)
from subscriptions.services.remote import reaction_for
from switchboard.mcp import McpCallError
from switchboard.queue import enqueue
from switchboard.services.server_dialects import server_events_error_seen


def control(sub: Subscription, parsed: InboundHeaders, payload: dict, now: datetime) -> Answer:
    """A control envelope of a type we do not know (a later revision's):
    accepted, stored, and forwarded to the host as it came (case 56)."""
    try:
        with transaction.atomic():
            ReceivedEvent.objects.create(
                subscription=sub,
                kind=ReceivedKind.CONTROL,
                webhook_id=parsed.webhook_id[:MAX_ID],
                body=payload,
            )
            subscription_emit(
                sub,
                type="subscription.control",
                data={**looked_up_host_data(sub), "envelope": payload},
                endpoint_status=sub.endpoint_status,  # type: ignore[attr-defined]
            )
    except IntegrityError:
        return duplicate()
    return accepted()


def _bind_id(sub: Subscription, parsed: InboundHeaders) -> dict[str, Any]:
    """Fields for the UPDATE that binds the server's id on the first verified delivery."""
    if sub.remote_id:
        return {}
    return {
        "remote_id": Case(
            When(remote_id="", then=Value(parsed.subscription_id[:MAX_ID])),
            default=F("remote_id"),
            output_field=CharField(),
        )
    }


def verification(sub: Subscription, parsed: InboundHeaders, payload: dict, now: datetime) -> Answer:
    challenge = payload.get("challenge")
    if not isinstance(challenge, str) or not challenge or len(challenge) > 1000:
        return error(400, "malformed_body", "challenge must be a non-empty string")
    Subscription.objects.filter(pk=sub.pk).update(verified_at=now, **_bind_id(sub, parsed))
    return Answer(200, {"challenge": challenge})


def gap(sub: Subscription, parsed: InboundHeaders, payload: dict, now: datetime) -> Answer:
    cursor = payload.get("cursor")
    if cursor is not None and not isinstance(cursor, str):
        return error(400, "malformed_body", "cursor must be a string or null")
    try:
        with transaction.atomic():
            ReceivedEvent.objects.create(
                subscription=sub,
                kind=ReceivedKind.GAP,
                webhook_id=parsed.webhook_id[:MAX_ID],
                body=payload,
                cursor=cursor,
            )
            locked = (
                Subscription.objects.select_for_update(no_key=True)
                .select_related("user", "server")
                .get(pk=sub.pk)
            )
            if cursor is not None:
                locked.cursor = cursor
                locked.cursor_event_at = None
            locked.truncated = True
            locked.last_gap_at = now
            if not locked.remote_id:
                locked.remote_id = parsed.subscription_id[:MAX_ID]
            locked.save(
                update_fields=[
                    "cursor",
                    "cursor_event_at",
                    "truncated",
                    "last_gap_at",
                    "remote_id",
                    "updated_at",
                ]
            )
            subscription_emit(
                locked, type="subscription.gap", data={**host_data(locked), "cursor": cursor}
            )
            subscription_record(
                locked,
                kind="gap",
                actor=SERVER,
                summary=f"The server reported a gap in {locked.event_name}: events may be missing",
            )
            status_changed(locked, previous=locked.status, actor=SERVER)
    except IntegrityError:
        return duplicate()
    return accepted()


def terminated(sub: Subscription, parsed: InboundHeaders, payload: dict, now: datetime) -> Answer:
    error_ = payload.get("error")
    if not isinstance(error_, dict):
        return error(400, "malformed_body", "terminated needs an error object")
    code = error_.get("code")
    message = error_.get("message")
    if isinstance(code, int):
        server_events_error_seen(server=sub.server, code=code)
    reaction = reaction_for(
        McpCallError(
            "mcp_error",
            str(message)[:200] if message is not None else "",
            code=code if isinstance(code, int) else None,
            data=error_.get("data"),
        ),
        running=True,
        dialect=sub.server.events_error_dialect,
    )
    try:
        with transaction.atomic():
            ReceivedEvent.objects.create(
                subscription=sub,
                kind=ReceivedKind.TERMINATED,
                webhook_id=parsed.webhook_id[:MAX_ID],
                body=payload,
            )
            locked = (
                Subscription.objects.select_for_update(no_key=True)
                .select_related("user", "server")
                .get(pk=sub.pk)
            )
            if locked.status in DEAD_STATUSES:
                return accepted()
            previous = locked.status
            locked.status = SubscriptionStatus.TERMINATED
            locked.ended_at = now
            locked.next_refresh_at = None
            locked.last_error = reaction.error if reaction.outcome != "retry" else "terminated"
            locked.last_error_message = (
                f"The server ended it: {str(message)[:200]}" if message else "The server ended it."
            )
            locked.save()
            status_changed(locked, previous=previous, actor=SERVER, reason=locked.last_error)
            if reaction.error == "event_not_found":
                # Conformance case 52: the type is gone; list again.
                enqueue("switchboard.sync_server", locked.server_id)
    except IntegrityError:
        return duplicate()
    return accepted()
