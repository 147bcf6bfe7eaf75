"""The push intake's SQL (``intake.arrivals_take_in``): on PostgreSQL a burst
of stream frames in two statements whatever its size; on both databases the
one definition of what a burst changes on its subscriptions.

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
2. ``arrivals_store``: one data-modifying CTE inserts the events
   (``received_sql``: stored once per eventId, as in the webhook receiver's
   ``event_store``), the outbox rows of those that were new and are
   forwarded now (the outbox's own INSERT, ``outbox.delivery_sql``), and
   moves every subscription's cursor, last event time and filter count, the
   last two only for the events that were new.
3. ``arrivals_recorded``: the ORM path's UPDATE of the burst's
   subscriptions; its SET is ``arrivals_store``'s (``_recorded_set``).

1 and 2 run in the caller's transaction: the filter and the channel read
under the lock in 1 decide what 2 writes. Values are parameters only, cast
to their columns' types (VALUES lists have no column to take a type from).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from django.db import connection

from outbox.delivery_sql import deliveries_insert, delivery_written
from outbox.models import HostDelivery, HostEndpoint
from subscriptions.models import ReceivedEvent, Subscription, SubscriptionStatus
from subscriptions.services.received_sql import received_insert
from switchboard.models import User
from switchboard.sql_rows import insert_params


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
def _store_sql(rows: int, events: int, forward: tuple[str, str] | None) -> str:
    """The statement; ``forward``: the outbox's INSERT (``rows`` and
    ``insert``, joined to the events that were new), or None."""
    quote = connection.ops.quote_name
    subs = quote(Subscription._meta.db_table)
    parts = [
        "u(id, passes, given, cursor) AS (VALUES "
        + ", ".join(["(%s::varchar, %s::boolean, %s::boolean, %s::text)"] * rows)
        + ")"
    ]
    if events:
        parts.append(received_insert(events))
    else:
        parts.append("stored AS (SELECT NULL::varchar AS subscription_id WHERE false)")
    if forward is not None:
        delivery_rows, insert = forward
        parts += [delivery_rows, f"forwarded AS ({insert})"]
    recorded = _recorded_set(
        # Only the events that were new count: ``stored`` returned their rows.
        passed="u.passes AND stored.subscription_id IS NOT NULL",
        filtered="NOT u.passes AND stored.subscription_id IS NOT NULL",
        given="u.given",
        cursor="u.cursor",
    )
    parts.append(
        f"recorded AS (UPDATE {subs} SET {recorded} "
        f"FROM u LEFT JOIN stored ON stored.subscription_id = u.id WHERE {subs}.id = u.id)"
    )
    answer = (
        "SELECT stored.subscription_id, forwarded.seq FROM stored "
        "LEFT JOIN forwarded ON forwarded.stream = stored.subscription_id"
        if forward is not None
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
    forward = None
    if deliveries:
        # Only for the events that were new; ``seq`` in the burst's order.
        insert = deliveries_insert(
            [w.delivery for w in deliveries],  # type: ignore[misc]  # filtered above
            join="JOIN stored ON stored.subscription_id = delivery_rows.stream",
        )
        forward = (insert.rows, insert.insert)
        params += insert.params
    stamp = connection.ops.adapt_datetimefield_value(now)
    params += [stamp, stamp]
    with connection.cursor() as cursor:
        cursor.execute(_store_sql(len(writes), len(events), forward), params)
        stored = dict(cursor.fetchall())
    for w in deliveries:
        if w.subscription_id in stored:
            assert w.delivery is not None
            delivery_written(w.delivery, stored[w.subscription_id])
    return set(stored)


# --- what a burst changes on its subscriptions, on both paths ------------------


def _recorded_set(*, passed: str, filtered: str, given: str, cursor: str) -> str:
    """The SET of a burst's UPDATE of its subscriptions, from per-row SQL
    conditions: ``updated_at`` on every row; the last event time for an event
    the host gets (now or in a digest); the filter's count for a new event it
    held back; the cursor when the frame carried one (its event time cleared).
    Two parameters, both ``now``."""
    table = connection.ops.quote_name(Subscription._meta.db_table)
    return (
        "updated_at = %s, "
        f"last_event_at = CASE WHEN {passed} THEN %s ELSE {table}.last_event_at END, "
        f"filtered_count = {table}.filtered_count + CASE WHEN {filtered} THEN 1 ELSE 0 END, "
        f"cursor = CASE WHEN {given} THEN {cursor} ELSE {table}.cursor END, "
        f"cursor_event_at = CASE WHEN {given} THEN NULL ELSE {table}.cursor_event_at END"
    )


@dataclass(frozen=True)
class ArrivalRecorded:
    """What one arrival changes on its subscription's row (the ORM path)."""

    subscription_id: str
    passed: bool  # a new event the host gets (now or in a digest): last_event_at
    filtered: bool  # a new event the filter held back: filtered_count + 1
    cursor_given: bool
    cursor: str | None


def arrivals_recorded(rows: list[ArrivalRecorded], now: datetime) -> None:
    """The ORM path's UPDATE of a burst's subscriptions (PostgreSQL and
    SQLite), with the SET of ``arrivals_store``'s: one statement, the rows
    from a VALUES list joined on the id.

    Written as SQL because the ORM's ``bulk_update`` compiles a Case/When per
    field and row (five fields: thousands of expression objects for a burst
    of twenty), which cost more CPU than the rest of the burst's statements
    together, on the thread whose GIL the stream-reading event loop shares.
    The flags are 0/1 for both databases."""
    if not rows:
        return
    table = connection.ops.quote_name(Subscription._meta.db_table)
    stamp = connection.ops.adapt_datetimefield_value(now)
    values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(rows))
    params: list[Any] = []
    for row in rows:
        params += [
            row.subscription_id,
            int(row.passed),
            int(row.filtered),
            int(row.cursor_given),
            row.cursor,
        ]
    recorded = _recorded_set(
        passed="v.passed = 1", filtered="v.filtered = 1", given="v.given = 1", cursor="v.cursor"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH v(id, passed, filtered, given, cursor) AS (VALUES {values}) "
            f"UPDATE {table} SET {recorded} FROM v WHERE {table}.id = v.id",
            [*params, stamp, stamp],
        )
