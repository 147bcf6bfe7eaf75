"""The webhook receiver: what one POST to ``/webhooks/mcp/<token>`` does.

Checks run cheapest first and nothing is written before all of them pass:

1. size (413; the ASGI middleware already refused larger bodies unread),
2. headers and freshness (400) — no database needed,
3. the token (404 unknown; 410 for a subscription we ended),
4. the signature over the raw bytes with the current secret, and the
   previous one during the rotation grace (401),
5. ``X-MCP-Subscription-Id`` once the server's id is bound (503: the server
   retries, e.g. while a resubscribe is rebinding),
6. the body (400 malformed).

Then one transaction stores the delivery and its forwarding work (the outbox
row) and answers 2xx only after it commits. Duplicates (same ``webhook-id``,
or same ``eventId``) hit a unique constraint and answer 200 without storing or
forwarding anything; concurrent duplicates are resolved by the database.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Case, CharField, F, Value, When
from django.utils import timezone

from outbox.models import HostEndpoint
from outbox.signing import (
    InboundHeaders,
    Rejected,
    identity_matches,
    inbound_headers,
    signature_matches,
)
from subscriptions import live
from subscriptions.models import (
    DEAD_STATUSES,
    RUNNING_STATUSES,
    DigestState,
    ReceivedEvent,
    ReceivedKind,
    Subscription,
    SubscriptionStatus,
    UnsubscribeState,
)
from subscriptions.services.common import (
    gap_flag,
    host_data,
    running_status,
    status_changed,
    subscription_emit,
    subscription_record,
)
from subscriptions.services.filters import event_passes
from subscriptions.services.intake import digest_state_for, event_for_host
from subscriptions.services.intake import occurred_at as occurred_at_of
from subscriptions.services.remote import reaction_for
from subscriptions.services.unsubscribe import unsubscribe_owed
from switchboard.actors import Actor
from switchboard.broadcast import PageUpdate, broadcast_updates
from switchboard.mcp import McpCallError, dialects
from switchboard.mcp.identity import webhook_keys
from switchboard.models import McpServer, User
from switchboard.queue import enqueue
from switchboard.services.server_dialects import server_events_error_seen

log = logging.getLogger(__name__)

SERVER = Actor.system("MCP server")
_MAX_ID = 200


@dataclass
class Answer:
    status: int
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    # Live-page updates for the caller to send, after the commit, from its
    # event loop (see ``page_updates_send``).
    page_updates: list[tuple[str, PageUpdate]] = field(default_factory=list)


async def page_updates_send(updates: list[tuple[str, PageUpdate]]) -> None:
    """Hand the receiver's live-page updates to the process's sender.

    The caller (ASGI layer or view) calls this after the commit, in the ASGI
    layer after the answer is already on its way. It never waits for Redis
    (``broadcast_updates``); it stays a coroutine for the callers that await it.
    """
    if updates:
        broadcast_updates(updates)


def _error(status: int, code: str, message: str, **headers: str) -> Answer:
    return Answer(status, {"error": {"code": code, "message": message}}, dict(headers))


def webhook_receive(*, token: str, headers: Mapping[str, str], body: bytes) -> Answer:
    """Handle one delivery; ``headers`` keys are lower-case."""
    try:
        return _receive(token, headers, body)
    except Rejected as rejected:
        return _error(rejected.status, rejected.code, rejected.message)
    except IntegrityError:
        raise
    except DatabaseError:
        log.exception("webhook receiver: storage failed")
        return _error(503, "storage_unavailable", "try again later", **{"Retry-After": "5"})


def _lookup_sql() -> str:
    """One indexed read per delivery: the subscription by token with what the
    event path needs (the user's external id, the host endpoint's status).

    A raw query because it runs for every delivery and the ORM's compilation
    of the equivalent select_related/only query costs more than the query.
    """
    quote = connection.ops.quote_name
    subs = quote(Subscription._meta.db_table)
    users = quote(User._meta.db_table)
    endpoints = quote(HostEndpoint._meta.db_table)
    servers = quote(McpServer._meta.db_table)
    return (
        "SELECT s.id, s.host_id, s.user_id, s.server_id, s.event_name, s.status, "
        "s.secret_encrypted, s.previous_secret_encrypted, s.previous_secret_until, "
        "s.remote_id, s.paused_at, s.last_event_at, s.unsubscribe_state, "
        f"s.{quote('filter')}, s.channel, "
        "u.external_id AS user_external_id, e.status AS endpoint_status, "
        "sv.events_enforce_identity AS enforce_identity, sv.url AS server_url "
        f"FROM {subs} s JOIN {users} u ON u.id = s.user_id "
        f"JOIN {servers} sv ON sv.id = s.server_id "
        f"LEFT JOIN {endpoints} e ON e.host_id = s.host_id "
        "WHERE s.token = %s"
    )


def _subscription_for(token: str) -> Subscription | None:
    if not token or len(token) > 64:
        return None
    found = list(Subscription.objects.raw(_lookup_sql(), [token]))
    return found[0] if found else None


def _host_data(sub: Subscription) -> dict[str, Any]:
    return {
        "subscription_id": sub.id,
        "user": sub.user_external_id,  # type: ignore[attr-defined]  # from _lookup_sql
        "server": sub.server_id,
    }


def _secrets(sub: Subscription, now: datetime) -> list[str]:
    secrets = [sub.secret]
    if (
        sub.previous_secret_encrypted
        and sub.previous_secret_until
        and sub.previous_secret_until > now
    ):
        secrets.append(sub.previous_secret)
    return secrets


def _receive(token: str, headers: Mapping[str, str], body: bytes) -> Answer:
    if len(body) > settings.WEBHOOK_MAX_BODY_BYTES:
        return _error(413, "too_large", "the body is over the size limit")
    parsed = inbound_headers(headers, tolerance=settings.WEBHOOK_TIMESTAMP_TOLERANCE)
    sub = _subscription_for(token)
    if sub is None:
        return _error(404, "unknown_receiver", "no such receiver")
    if sub.status in DEAD_STATUSES or sub.status == SubscriptionStatus.PENDING_CONSENT:
        if sub.status in DEAD_STATUSES:
            _tombstone_delivery(sub)
        return _error(410, "gone", "this subscription has ended")
    now = timezone.now()
    if not signature_matches(body, parsed, _secrets(sub, now)):
        return _error(401, "bad_signature", "no signature matches")
    if sub.enforce_identity and not _identity_verified(sub, parsed, body):  # type: ignore[attr-defined]
        return _error(401, "bad_identity", "no v1a signature by the server's published keys")
    try:
        payload = json.loads(body)
    except ValueError:
        return _error(400, "malformed_body", "the body is not JSON")
    if not isinstance(payload, dict):
        return _error(400, "malformed_body", "the body must be a JSON object")
    kind = payload.get("type")
    if kind == "verification":
        # Answered whatever the id says: any non-2xx fails the server's
        # subscribe (§7.2 (6)); only an unbound subscription takes its id.
        return _verification(sub, parsed, payload, now)
    if not sub.remote_id or parsed.subscription_id != sub.remote_id:
        # §7.3: the id is bound by the challenge or the subscribe answer;
        # until then (or for another id) the server retries later.
        return _error(503, "unknown_subscription_id", "not routable yet", **{"Retry-After": "5"})
    if kind is None:
        return _event(sub, parsed, payload, now)
    if kind == "gap":
        return _gap(sub, parsed, payload, now)
    if kind == "terminated":
        return _terminated(sub, parsed, payload, now)
    return _control(sub, parsed, payload, now)


def _identity_verified(sub: Subscription, parsed: InboundHeaders, body: bytes) -> bool:
    """The server's ed25519 signature, by a key it publishes (fetched again
    once when none verifies: the key may have just rotated)."""
    if not parsed.identity_signatures:
        return False
    server_url = sub.server_url  # type: ignore[attr-defined]  # from _lookup_sql
    if identity_matches(body, parsed, webhook_keys(server_url)):
        return True
    return identity_matches(body, parsed, webhook_keys(server_url, refresh=True))


def oversize_refused(*, token: str, webhook_id: str) -> None:
    """We answered 413 to a delivery: the server will not send that event
    again (§7.2 (8)), so the host hears that one may be missing — once per
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


def _tombstone_delivery(sub: Subscription) -> None:
    """A delivery for a subscription we ended. On a SEP-3415 server a 410
    stops only that delivery, not the subscription (§7.2 (8)), so the
    server is asked to unsubscribe again unless that is already under way."""
    if sub.unsubscribe_state == UnsubscribeState.PENDING:
        return
    server = McpServer.objects.filter(pk=sub.server_id).first()
    if server is None or server.events_dialect != dialects.SEP or not server.url:
        return
    with transaction.atomic():
        unsubscribe_owed([sub.pk])


def _control(sub: Subscription, parsed: InboundHeaders, payload: dict, now: datetime) -> Answer:
    """A control envelope of a type we do not know (a later revision's):
    accepted, stored, and forwarded to the host as it came (§7.2 (7))."""
    try:
        with transaction.atomic():
            ReceivedEvent.objects.create(
                subscription=sub,
                kind=ReceivedKind.CONTROL,
                webhook_id=parsed.webhook_id[:_MAX_ID],
                body=payload,
            )
            subscription_emit(
                sub,
                type="subscription.control",
                data={**_host_data(sub), "envelope": payload},
                endpoint_status=sub.endpoint_status,  # type: ignore[attr-defined]
            )
    except IntegrityError:
        return Answer(200, {"status": "duplicate"})
    return Answer(200, {"status": "accepted"})


def _bind_id(sub: Subscription, parsed: InboundHeaders) -> dict[str, Any]:
    """Fields for the UPDATE that binds the server's id on the first verified delivery."""
    if sub.remote_id:
        return {}
    return {
        "remote_id": Case(
            When(remote_id="", then=Value(parsed.subscription_id[:_MAX_ID])),
            default=F("remote_id"),
            output_field=CharField(),
        )
    }


def _verification(
    sub: Subscription, parsed: InboundHeaders, payload: dict, now: datetime
) -> Answer:
    challenge = payload.get("challenge")
    if not isinstance(challenge, str) or not challenge or len(challenge) > 1000:
        return _error(400, "malformed_body", "challenge must be a non-empty string")
    Subscription.objects.filter(pk=sub.pk).update(verified_at=now, **_bind_id(sub, parsed))
    return Answer(200, {"challenge": challenge})


def _event(sub: Subscription, parsed: InboundHeaders, payload: dict, now: datetime) -> Answer:
    event_id = payload.get("eventId")
    name = payload.get("name")
    cursor = payload.get("cursor")
    if not isinstance(event_id, str) or not event_id or len(event_id) > _MAX_ID:
        return _error(400, "malformed_body", "eventId must be a non-empty string")
    if name != sub.event_name:
        return _error(400, "malformed_body", "name does not match the subscription's event type")
    if cursor is not None and not isinstance(cursor, str):
        return _error(400, "malformed_body", "cursor must be a string or null")
    occurred_at = occurred_at_of(payload.get("timestamp")) or now
    event = event_for_host(payload)
    passes = event_passes(sub.filter, payload)
    try:
        with transaction.atomic():
            received = ReceivedEvent.objects.create(
                subscription=sub,
                kind=ReceivedKind.EVENT,
                webhook_id=parsed.webhook_id[:_MAX_ID],
                event_id=event_id,
                body=payload,
                cursor=cursor,
                occurred_at=occurred_at,
                digest_state=digest_state_for(sub.channel, passes),
            )
            _event_recorded(sub, parsed, cursor=cursor, occurred_at=occurred_at, now=now)
            if passes and received.digest_state != DigestState.WAITING:
                subscription_emit(
                    sub,
                    type="event.received",
                    data={**_host_data(sub), "event": event},
                    endpoint_status=sub.endpoint_status,  # type: ignore[attr-defined]
                )
            elif not passes:
                # Held back by the host's filter: stored (a retry is a duplicate), counted.
                Subscription.objects.filter(pk=sub.pk).update(
                    filtered_count=F("filtered_count") + 1
                )
            if sub.status == SubscriptionStatus.SUSPENDED:
                _delivery_resumed(sub)
    except IntegrityError:
        return Answer(200, {"status": "duplicate"})
    if not passes:
        return Answer(200, {"status": "accepted"})
    return Answer(200, {"status": "accepted"}, page_updates=_event_page_updates(sub, received, now))


def _delivery_resumed(sub: Subscription) -> None:
    """The server had stopped delivering (a refresh said so); this event shows
    it delivers again."""
    locked = (
        Subscription.objects.select_for_update().select_related("user", "server").get(pk=sub.pk)
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


def _event_recorded(
    sub: Subscription,
    parsed: InboundHeaders,
    *,
    cursor: str | None,
    occurred_at: datetime,
    now: datetime,
) -> None:
    """One UPDATE: last event time; the cursor if this event is not older
    than the one that set it (an older retry never moves it back; null is
    never stored); the server's id if not bound yet.

    Written as SQL because it runs for every event and the ORM's compilation
    of the equivalent Case/When update costs more than the statement itself.
    """
    ops = connection.ops
    table = connection.ops.quote_name(Subscription._meta.db_table)
    with connection.cursor() as cursor_:
        cursor_.execute(
            f"UPDATE {table} SET last_event_at = %s, "
            "cursor = CASE WHEN %s AND (cursor_event_at IS NULL OR cursor_event_at <= %s) "
            "THEN %s ELSE cursor END, "
            "cursor_event_at = CASE WHEN %s AND (cursor_event_at IS NULL OR cursor_event_at <= %s) "
            "THEN %s ELSE cursor_event_at END, "
            "remote_id = CASE WHEN remote_id = '' THEN %s ELSE remote_id END "
            "WHERE id = %s",
            [
                ops.adapt_datetimefield_value(now),
                cursor is not None,
                ops.adapt_datetimefield_value(occurred_at),
                cursor,
                cursor is not None,
                ops.adapt_datetimefield_value(occurred_at),
                ops.adapt_datetimefield_value(occurred_at),
                parsed.subscription_id[:_MAX_ID],
                sub.pk,
            ],
        )


def _event_page_updates(
    sub: Subscription, received: ReceivedEvent, now: datetime
) -> list[tuple[str, PageUpdate]]:
    sub.last_event_at = now
    return live.event_page_updates(sub, received)


def _gap(sub: Subscription, parsed: InboundHeaders, payload: dict, now: datetime) -> Answer:
    cursor = payload.get("cursor")
    if cursor is not None and not isinstance(cursor, str):
        return _error(400, "malformed_body", "cursor must be a string or null")
    try:
        with transaction.atomic():
            ReceivedEvent.objects.create(
                subscription=sub,
                kind=ReceivedKind.GAP,
                webhook_id=parsed.webhook_id[:_MAX_ID],
                body=payload,
                cursor=cursor,
            )
            locked = (
                Subscription.objects.select_for_update()
                .select_related("user", "server")
                .get(pk=sub.pk)
            )
            if cursor is not None:
                locked.cursor = cursor
                locked.cursor_event_at = None
            locked.truncated = True
            locked.last_gap_at = now
            if not locked.remote_id:
                locked.remote_id = parsed.subscription_id[:_MAX_ID]
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
        return Answer(200, {"status": "duplicate"})
    return Answer(200, {"status": "accepted"})


def _terminated(sub: Subscription, parsed: InboundHeaders, payload: dict, now: datetime) -> Answer:
    error = payload.get("error")
    if not isinstance(error, dict):
        return _error(400, "malformed_body", "terminated needs an error object")
    code = error.get("code")
    message = error.get("message")
    if isinstance(code, int):
        server_events_error_seen(server=sub.server, code=code)
    reaction = reaction_for(
        McpCallError(
            "mcp_error",
            str(message)[:200] if message is not None else "",
            code=code if isinstance(code, int) else None,
            data=error.get("data"),
        ),
        running=True,
        dialect=sub.server.events_error_dialect,
    )
    try:
        with transaction.atomic():
            ReceivedEvent.objects.create(
                subscription=sub,
                kind=ReceivedKind.TERMINATED,
                webhook_id=parsed.webhook_id[:_MAX_ID],
                body=payload,
            )
            locked = (
                Subscription.objects.select_for_update()
                .select_related("user", "server")
                .get(pk=sub.pk)
            )
            if locked.status in DEAD_STATUSES:
                return Answer(200, {"status": "accepted"})
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
                # §7.5 case 52: the type is gone; list again.
                enqueue("switchboard.sync_server", locked.server_id)
    except IntegrityError:
        return Answer(200, {"status": "duplicate"})
    return Answer(200, {"status": "accepted"})
