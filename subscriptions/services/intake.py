"""Events that we fetch (poll) or that arrive on a held stream (push): stored,
deduplicated, forwarded once, and the cursor moved in the same transaction.

The webhook receiver has its own path (``receiver/``): it answers HTTP,
verifies signatures and binds ids; what the three share is the shape of
what the host receives (``event_for_host``) and the one-row-per-eventId rule,
which the database enforces (``received_unique_event_id``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from outbox.emit import HostEmit, enqueue_after_commit, host_delivery_unsaved, host_events_emit
from outbox.models import DeliveryStatus
from subscriptions.models import (
    DigestState,
    ReceivedEvent,
    ReceivedKind,
    Subscription,
    SubscriptionStatus,
)
from subscriptions.services.arrivals_sql import (
    ArrivalRecorded,
    ArrivalWrite,
    arrivals_locked,
    arrivals_recorded,
    arrivals_store,
)
from subscriptions.services.channels import is_digest
from subscriptions.services.common import (
    gap_flag,
    host_data,
    running_status,
    status_changed,
    subscription_broadcast_soon,
    subscription_emit,
)
from subscriptions.services.filters import event_passes
from switchboard.actors import Actor
from switchboard.sql_rows import one_statement_available
from switchboard.trust import EVENT_TRUST

SERVER = Actor.system("mcp server")
_MAX_ID = 200


def occurred_at(value: Any) -> datetime | None:
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        parsed = parse_datetime(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed is None or timezone.is_naive(parsed):
        return None
    return parsed


def event_for_host(occurrence: dict[str, Any]) -> dict[str, Any]:
    """The ``event`` of an ``event.received`` delivery (docs/host-integration.md), whatever
    the mode it came by, marked untrusted (``switchboard.trust``)."""
    return {
        "eventId": occurrence.get("eventId"),
        "name": occurrence.get("name"),
        "timestamp": occurrence.get("timestamp"),
        "data": occurrence.get("data"),
        "cursor": occurrence.get("cursor"),
        "trust": EVENT_TRUST,
        # MCPE events carry their metadata (priority, tags, source id) too.
        **({"metadata": occurrence["metadata"]} if "metadata" in occurrence else {}),
    }


def _event_id(occurrence: dict[str, Any]) -> str | None:
    event_id = occurrence.get("eventId")
    if not isinstance(event_id, str) or not event_id or len(event_id) > _MAX_ID:
        return None  # the spec requires it; without it nothing can be deduplicated
    return event_id


def digest_state_for(channel: dict[str, Any] | None, passes: bool) -> str:
    """Stored ``waiting`` when it passed the filter and goes in a digest."""
    return DigestState.WAITING if passes and is_digest(channel) else DigestState.DIRECT


def _received(sub: Subscription, event_id: str, occurrence: dict[str, Any], now: datetime):
    return ReceivedEvent(
        subscription=sub,
        kind=ReceivedKind.EVENT,
        webhook_id=f"{sub.mode}:{event_id}"[:_MAX_ID],
        event_id=event_id,
        body=occurrence,
        cursor=occurrence.get("cursor"),
        occurred_at=occurred_at(occurrence.get("timestamp")) or now,
    )


def _store_one(sub: Subscription, occurrence: dict[str, Any], now: datetime) -> bool:
    """One occurrence, once: False when its eventId was stored before or the
    host's filter holds it back (stored all the same, so a replay is known;
    counted on the subscription). A digest subscription's event waits for
    its digest instead of being forwarded."""
    event_id = _event_id(occurrence)
    if event_id is None:
        return False
    passes = event_passes(sub.filter, occurrence)
    row = _received(sub, event_id, occurrence, now)
    row.digest_state = digest_state_for(sub.channel, passes)
    try:
        with transaction.atomic():
            row.save(force_insert=True)
    except IntegrityError:
        return False
    if not passes:
        sub.filtered_count += 1
        return False
    if row.digest_state == DigestState.WAITING:
        return True
    subscription_emit(
        sub, type="event.received", data={**host_data(sub), "event": event_for_host(occurrence)}
    )
    return True


def _locked(subscription_id: str) -> Subscription:
    return (
        # Only the subscription's row is locked (``of``): its events wait for
        # each other, never for another stream of the same user. The user is
        # read for the head of each delivery; the server only on the rare
        # status change (loaded then).
        Subscription.objects.select_for_update(no_key=True, of=("self",))
        .select_related("user")
        .get(pk=subscription_id)
    )


def events_take_in(
    *,
    subscription_id: str,
    occurrences: list[dict[str, Any]],
    cursor: str | None,
    cursor_given: bool,
    truncated: bool = False,
    source: str,
) -> int:
    """Store and forward ``occurrences``, then persist ``cursor`` — one
    transaction, so a crash keeps both or neither (docs/events-client.md §9).

    ``cursor_given``: the answer carried a cursor field. A ``null`` cursor is
    never replayed from (docs/conformance.md case 34): the stored one becomes null and the next
    request sends null. ``truncated`` flags a gap (cases 27, 36). A pending
    subscription becomes active. Returns how many were new.
    """
    now = timezone.now()
    with transaction.atomic():
        sub = _locked(subscription_id)
        if sub.is_dead:
            return 0
        held_back = sub.filtered_count
        new = sum(_store_one(sub, occurrence, now) for occurrence in occurrences)
        fields = ["updated_at"]
        if sub.filtered_count != held_back:
            fields.append("filtered_count")
        if new:
            sub.last_event_at = now
            fields.append("last_event_at")
        if cursor_given:
            sub.cursor = cursor
            sub.cursor_event_at = None
            fields += ["cursor", "cursor_event_at"]
        if sub.refresh_failures or sub.last_error:
            sub.refresh_failures = 0
            sub.last_error = ""
            sub.last_error_message = ""
            fields += ["refresh_failures", "last_error", "last_error_message"]
        previous = sub.status
        if sub.status in (SubscriptionStatus.PENDING, SubscriptionStatus.EXPIRED):
            sub.status = running_status(sub)
            fields.append("status")
        sub.save(update_fields=fields)
        if truncated and cursor is not None:
            gap_flag(
                sub,
                cursor=cursor,
                source=source,
                actor=SERVER,
                summary=f"The server skipped events of {sub.event_name} (truncated): "
                "some may be missing",
            )
        if previous != sub.status:
            status_changed(sub, previous=previous, actor=SERVER, reason=f"{sub.mode}_started")
        elif new:
            subscription_broadcast_soon(sub)
    return new


def _arrived(
    sub: Subscription, event_id: str, occurrence: dict[str, Any], now: datetime, passing: set[str]
) -> ReceivedEvent:
    row = _received(sub, event_id, occurrence, now)
    row.digest_state = digest_state_for(sub.channel, sub.pk in passing)
    return row


# What ``arrivals_take_in`` reads of a subscription (``_received``,
# ``host_data``, filters, digests, the outbox's stream and hold, broadcasts).
_FAST_PATH_FIELDS = (
    "id",
    "host_id",
    "user_id",
    "server_id",
    "mode",
    "filter",
    "channel",
    "paused_at",
    "user__external_id",
)


@dataclass(frozen=True)
class Arrival:
    """What one stream frame brings: an event (``occurrence``) or none (a
    heartbeat), and the cursor that covers it."""

    subscription_id: str
    occurrence: dict[str, Any] | None
    cursor: str | None
    cursor_given: bool


def arrivals_take_in(arrivals: list[Arrival]) -> set[str]:
    """``events_take_in`` for frames of many streams at once, at most one per
    subscription (a stream waits for its frame before reading the next): one
    transaction and a fixed number of statements for the whole burst, so
    under load the cost per event falls instead of the queue growing.

    Only the common case is taken here: a running subscription (``active``,
    no error to clear), an event with an id or no event. Returns the ids it
    took; the caller takes the rest one by one with ``events_take_in`` (which
    owns status changes), in the same transaction. Call inside one.

    On PostgreSQL that is two statements (``arrivals_sql``); elsewhere the
    ORM's eight."""
    by_id = {a.subscription_id: a for a in arrivals}
    if len(by_id) != len(arrivals):
        raise ValueError("at most one arrival per subscription")
    if one_statement_available():
        return _arrivals_in_two_statements(by_id)
    now = timezone.now()
    subs = list(
        Subscription.objects.select_for_update(no_key=True, of=("self",))
        .select_related("user")
        .filter(
            pk__in=list(by_id),
            status=SubscriptionStatus.ACTIVE,
            refresh_failures=0,
            last_error="",
        )
        # Only what the fast path reads (a row has some 65 columns with the
        # user's, JSON among them, and turning them into objects was most of
        # this query's CPU); anything else would be a query per row.
        .only(*_FAST_PATH_FIELDS)
        .order_by("pk")  # one lock order, whoever else locks several
    )
    if not subs:
        return set()
    wanted = {
        sub.pk: event_id
        for sub in subs
        if (occurrence := by_id[sub.pk].occurrence) is not None
        and (event_id := _event_id(occurrence)) is not None
    }
    seen = set(
        ReceivedEvent.objects.filter(
            subscription_id__in=list(wanted), event_id__in=list(wanted.values())
        ).values_list("subscription_id", "event_id")
    )
    fresh = [sub for sub in subs if sub.pk in wanted and (sub.pk, wanted[sub.pk]) not in seen]
    # Stored either way (a replay is known); forwarded only if the filter
    # passes, and then now (realtime) or with the next digest.
    passing = [sub for sub in fresh if event_passes(sub.filter, by_id[sub.pk].occurrence or {})]
    passing_ids = {sub.pk for sub in passing}
    forwarded = [sub for sub in passing if not is_digest(sub.channel)]
    fresh_ids = {sub.pk for sub in fresh}
    try:
        # The rows are locked and `seen` read under the locks, so a conflict
        # means a writer that skipped the lock: leave it all to the slow path.
        with transaction.atomic():
            ReceivedEvent.objects.bulk_create(
                [
                    _arrived(sub, wanted[sub.pk], by_id[sub.pk].occurrence or {}, now, passing_ids)
                    for sub in fresh
                ]
            )
    except IntegrityError:
        return set()
    host_events_emit(
        [
            HostEmit(
                host_id=sub.host_id,
                type="event.received",
                data={**host_data(sub), "event": event_for_host(by_id[sub.pk].occurrence or {})},
                stream=sub.id,
                hold=sub.paused_at is not None,
            )
            for sub in forwarded
        ]
    )
    arrivals_recorded(
        [
            ArrivalRecorded(
                subscription_id=sub.pk,
                passed=sub.pk in passing_ids,
                filtered=sub.pk in fresh_ids and sub.pk not in passing_ids,
                cursor_given=by_id[sub.pk].cursor_given,
                cursor=by_id[sub.pk].cursor,
            )
            for sub in subs
        ],
        now,
    )
    for sub in passing:
        subscription_broadcast_soon(sub)
    return {sub.pk for sub in subs}


def _arrivals_in_two_statements(by_id: dict[str, Arrival]) -> set[str]:
    """``arrivals_take_in`` on PostgreSQL: lock and read, then one statement
    for every write (``arrivals_sql``). The same rows as the ORM path: the
    event stored whatever the filter says, its outbox row only if it was new
    and passes (and is not a digest's), the cursor moved either way."""
    now = timezone.now()
    subs = arrivals_locked(list(by_id))
    if not subs:
        return set()
    writes = [_write_for(sub, by_id[sub.pk], now) for sub in subs]
    new = arrivals_store(writes, now)
    enqueue_after_commit(
        [
            w.delivery.seq
            for w in writes
            if w.delivery is not None
            and w.subscription_id in new
            and w.delivery.status == DeliveryStatus.PENDING
        ]
    )
    for sub, write in zip(subs, writes, strict=True):
        if write.passes and sub.pk in new:
            subscription_broadcast_soon(sub)
    return {sub.pk for sub in subs}


def _write_for(sub: Subscription, arrival: Arrival, now: datetime) -> ArrivalWrite:
    """What one arrival writes; ``sub`` comes from ``arrivals_locked`` (with
    ``user_external_id`` and ``endpoint_status``)."""
    occurrence = arrival.occurrence
    event_id = None if occurrence is None else _event_id(occurrence)
    if occurrence is None or event_id is None:
        return ArrivalWrite(
            subscription_id=sub.pk,
            received=None,
            passes=False,
            delivery=None,
            cursor_given=arrival.cursor_given,
            cursor=arrival.cursor,
        )
    passes = event_passes(sub.filter, occurrence)
    received = _arrived(sub, event_id, occurrence, now, {sub.pk} if passes else set())
    delivery = None
    if passes and received.digest_state != DigestState.WAITING:
        head = {
            # ``host_data``, with the user's external id read under the lock
            # (``sub.user`` would be a query).
            "subscription_id": sub.id,
            "user": sub.user_external_id,  # type: ignore[attr-defined]
            "server": sub.server_id,
        }
        delivery = host_delivery_unsaved(
            HostEmit(
                host_id=sub.host_id,
                type="event.received",
                data={**head, "event": event_for_host(occurrence)},
                stream=sub.id,
                hold=sub.paused_at is not None,
            ),
            endpoint_status=sub.endpoint_status,  # type: ignore[attr-defined]
            now=now,
        )
    return ArrivalWrite(
        subscription_id=sub.pk,
        received=received,
        passes=passes,
        delivery=delivery,
        cursor_given=arrival.cursor_given,
        cursor=arrival.cursor,
    )
