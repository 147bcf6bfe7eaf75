"""The push intake's SQL on PostgreSQL: a burst of stream frames in two
statements whatever its size (``intake.arrivals_take_in``).

Why not the ORM: the session worker's write threads share the GIL with the
event loop that reads every stream, so the Python each statement costs is
taken from the streams. Through the ORM a burst was eight statements (lock,
the eventIds already stored, a savepoint around the events' INSERT and its
release, the endpoints, the outbox INSERT, the cursors' UPDATE), and
compiling them was most of the write thread's CPU, a burst of one frame
included.

1. ``arrivals_locked``: lock the running subscriptions of the burst (the
   same rows and lock order as the ORM path) and read, in the same
   statement, what the writes need: the user's external id for the head of
   each delivery and the host endpoint's status for the outbox rows.
2. ``arrivals_store``: one data-modifying CTE inserts the events (``ON
   CONFLICT DO NOTHING`` on the eventId constraint, which is how a replay
   shows, as in the webhook receiver's ``event_store``), the outbox rows of
   those that were new and are forwarded now, and moves every subscription's
   cursor, last event time and filter count, the last two only for the
   events that were new.

Both run in the caller's transaction: the filter and the channel read under
the lock in 1 decide what 2 writes. Values are parameters only, cast to
their columns' types (VALUES lists have no column to take a type from).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from django.db import connection

from outbox.models import HostDelivery, HostEndpoint
from subscriptions.models import ReceivedEvent, Subscription, SubscriptionStatus
from subscriptions.services.sql_rows import (
    columns,
    insert_params,
    inserted_fields,
    typed_placeholders,
)
from switchboard.models import User


@lru_cache(maxsize=64)
def _locked_sql(count: int) -> str:
    quote = connection.ops.quote_name
    subs = quote(Subscription._meta.db_table)
    users = quote(User._meta.db_table)
    endpoints = quote(HostEndpoint._meta.db_table)
    return (
        "SELECT s.id, s.host_id, s.user_id, s.server_id, s.mode, s.paused_at, "
        f"s.{quote('filter')}, s.channel, "
        "u.external_id AS user_external_id, e.status AS endpoint_status "
        f"FROM {subs} s JOIN {users} u ON u.id = s.user_id "
        f"LEFT JOIN {endpoints} e ON e.host_id = s.host_id "
        f"WHERE s.id IN ({', '.join(['%s'] * count)}) "
        # The fast path's rows: running, no error to clear (the rest take
        # ``events_take_in``, which owns status changes).
        "AND s.status = %s AND s.refresh_failures = 0 AND s.last_error = '' "
        # One lock order, whoever else locks several; only the subscriptions'
        # rows (a user's or a host's row is never held by a stream's write).
        "ORDER BY s.id FOR NO KEY UPDATE OF s"
    )


def arrivals_locked(subscription_ids: list[str]) -> list[Subscription]:
    """The running subscriptions among ``subscription_ids``, locked, in id
    order, with ``user_external_id`` and ``endpoint_status`` (None: the host
    has no endpoint) joined in. Inside a transaction."""
    if not subscription_ids:
        return []
    sql = _locked_sql(len(subscription_ids))
    return list(Subscription.objects.raw(sql, [*subscription_ids, SubscriptionStatus.ACTIVE]))


@dataclass(frozen=True)
class ArrivalWrite:
    """What one frame writes: its event (none for a heartbeat or an event
    without an id) and that event's outbox row (none when it is held back
    by the filter or waits for a digest), and the cursor."""

    subscription_id: str
    received: ReceivedEvent | None
    passes: bool  # passed the host's filter: the last event time if new, else counted
    delivery: HostDelivery | None
    cursor_given: bool
    cursor: str | None


@lru_cache(maxsize=256)
def _store_sql(rows: int, events: int, deliveries: int) -> str:
    quote = connection.ops.quote_name
    subs = quote(Subscription._meta.db_table)
    parts = [
        "u(id, passes, given, cursor) AS (VALUES "
        + ", ".join(["(%s::varchar, %s::boolean, %s::boolean, %s::text)"] * rows)
        + ")"
    ]
    if events:
        received = inserted_fields(ReceivedEvent)
        parts += [
            f"r({columns(received)}) AS (VALUES "
            + ", ".join([f"({typed_placeholders(received)})"] * events)
            + ")",
            f"stored AS (INSERT INTO {quote(ReceivedEvent._meta.db_table)} "
            f"({columns(received)}) SELECT * FROM r "
            # The eventId constraint (received_unique_event_id) decides what
            # is new, concurrent writers included.
            "ON CONFLICT (subscription_id, event_id) WHERE event_id IS NOT NULL DO NOTHING "
            "RETURNING subscription_id)",
        ]
    else:
        parts.append("stored AS (SELECT NULL::varchar AS subscription_id WHERE false)")
    if deliveries:
        fields = inserted_fields(HostDelivery)
        names = [quote(str(f.column)) for f in fields]
        parts += [
            f"d(n, {columns(fields)}) AS (VALUES "
            + ", ".join([f"(%s::integer, {typed_placeholders(fields)})"] * deliveries)
            + ")",
            # Only for the events that were new; ``seq`` in the burst's order.
            f"forwarded AS (INSERT INTO {quote(HostDelivery._meta.db_table)} "
            f"({', '.join(names)}) SELECT {', '.join(f'd.{n}' for n in names)} "
            "FROM d JOIN stored ON stored.subscription_id = d.stream ORDER BY d.n "
            "RETURNING seq, stream)",
        ]
    parts.append(
        f"recorded AS (UPDATE {subs} SET updated_at = %s, "
        "last_event_at = CASE WHEN u.passes AND stored.subscription_id IS NOT NULL "
        f"THEN %s ELSE {subs}.last_event_at END, "
        f"filtered_count = {subs}.filtered_count + "
        "CASE WHEN NOT u.passes AND stored.subscription_id IS NOT NULL THEN 1 ELSE 0 END, "
        f"cursor = CASE WHEN u.given THEN u.cursor ELSE {subs}.cursor END, "
        f"cursor_event_at = CASE WHEN u.given THEN NULL ELSE {subs}.cursor_event_at END "
        f"FROM u LEFT JOIN stored ON stored.subscription_id = u.id WHERE {subs}.id = u.id)"
    )
    answer = (
        "SELECT stored.subscription_id, forwarded.seq FROM stored "
        "LEFT JOIN forwarded ON forwarded.stream = stored.subscription_id"
        if deliveries
        else "SELECT subscription_id, NULL FROM stored"
    )
    return "WITH " + ", ".join(parts) + " " + answer


def arrivals_store(writes: list[ArrivalWrite], now: datetime) -> set[str]:
    """Write ``writes`` (at most one per subscription, all locked by
    ``arrivals_locked`` in this transaction) in one statement. Returns the
    subscriptions whose event was new; sets ``delivery.seq`` on their outbox
    rows. The caller owes ``enqueue_after_commit`` for the pending ones."""
    if not writes:
        return set()
    events = [w for w in writes if w.received is not None]
    deliveries = [w for w in events if w.delivery is not None]
    params: list[Any] = []
    for w in writes:
        params += [w.subscription_id, w.passes, w.cursor_given, w.cursor]
    for w in events:
        params += insert_params(w.received)  # type: ignore[arg-type]  # filtered above
    for n, w in enumerate(deliveries):
        params += [n, *insert_params(w.delivery)]  # type: ignore[arg-type]
    stamp = connection.ops.adapt_datetimefield_value(now)
    params += [stamp, stamp]
    with connection.cursor() as cursor:
        cursor.execute(_store_sql(len(writes), len(events), len(deliveries)), params)
        stored = dict(cursor.fetchall())
    for w in deliveries:
        if w.subscription_id in stored:
            assert w.delivery is not None
            w.delivery.seq = stored[w.subscription_id]
            w.delivery._state.adding = False
    return set(stored)
