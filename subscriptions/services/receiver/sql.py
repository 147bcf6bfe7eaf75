"""The receiver's SQL: the token lookup, and an event stored with its cursor
and its outbox row.

Why not the ORM here: these run for every delivery a server sends, and each
statement is a round trip.

1. The lookup is one indexed read that joins what every later step needs
   (the user's external id, the host endpoint's status, the server's identity
   rule); the equivalent ``select_related``/``only`` query costs more Python
   to compile than the database takes to answer it.
2. On PostgreSQL an accepted event is **one statement** in autocommit
   (``event_store``): data-modifying CTEs insert the event (``ON CONFLICT DO
   NOTHING`` on the eventId constraint, which is how a duplicate shows),
   move the cursor and counters, and insert the outbox row (the outbox's own
   INSERT, ``outbox.delivery_sql``), the last two only when the insert
   returned a row. One statement is atomic by itself,
   so it also needs no BEGIN and COMMIT: 2 round trips per delivery (lookup
   and this) instead of 6. The ORM cannot say this.
3. Elsewhere (SQLite has no data-modifying CTEs) and for the rare event that
   changes the subscription's status, the caller uses a transaction and the
   ORM, with ``event_recorded`` as its one UPDATE (same SQL as in 2).

Values are parameters only. Nothing here reads a timestamp back from raw SQL
(the lookup goes through ``raw()``, which converts the model's columns; the
statement returns ids), so SQLite's naive datetimes (see
``consent.plan_sql._moment``) never reach a comparison.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from django.db import connection, transaction

from outbox.delivery_sql import deliveries_insert, delivery_written
from outbox.models import HostDelivery, HostEndpoint
from subscriptions.models import ReceivedEvent, Subscription
from subscriptions.services.received_sql import received_insert
from switchboard.models import McpServer, User
from switchboard.sql_rows import insert_params


@cache
def _lookup_sql() -> str:
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


def subscription_by_token(token: str) -> Subscription | None:
    """The subscription of a receiver URL, with ``user_external_id``,
    ``endpoint_status``, ``enforce_identity`` and ``server_url`` joined in."""
    if not token or len(token) > 64:
        return None
    found = list(Subscription.objects.raw(_lookup_sql(), [token]))
    return found[0] if found else None


@dataclass(frozen=True)
class Recorded:
    """What an accepted event changes on its subscription's row."""

    subscription_id: str
    cursor: str | None
    occurred_at: datetime
    now: datetime
    filtered: bool  # held back by the host's filter: counted
    remote_id: str  # bound if the row has none yet


# The last event time; the cursor if this event is not older than the one
# that set it (an older retry never moves it back; null is never stored);
# the filter's count; the server's id if not bound yet.
_RECORDED_SET = (
    "last_event_at = %s, "
    "filtered_count = filtered_count + %s, "
    "cursor = CASE WHEN %s AND (cursor_event_at IS NULL OR cursor_event_at <= %s) "
    "THEN %s ELSE cursor END, "
    "cursor_event_at = CASE WHEN %s AND (cursor_event_at IS NULL OR cursor_event_at <= %s) "
    "THEN %s ELSE cursor_event_at END, "
    "remote_id = CASE WHEN remote_id = '' THEN %s ELSE remote_id END"
)


def _recorded_params(recorded: Recorded) -> list[Any]:
    ops = connection.ops
    occurred = ops.adapt_datetimefield_value(recorded.occurred_at)
    given = recorded.cursor is not None
    return [
        ops.adapt_datetimefield_value(recorded.now),
        int(recorded.filtered),
        given,
        occurred,
        recorded.cursor,
        given,
        occurred,
        occurred,
        recorded.remote_id,
    ]


def event_recorded(recorded: Recorded) -> None:
    """The subscription's side of an accepted event, as one UPDATE (for the
    transaction of ``events.event``'s general path)."""
    table = connection.ops.quote_name(Subscription._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {_RECORDED_SET} WHERE id = %s",
            [*_recorded_params(recorded), recorded.subscription_id],
        )


_FORWARDED_JOIN = "JOIN stored ON stored.subscription_id = delivery_rows.stream"


@cache
def _event_store_sql(forward: tuple[str, str] | None) -> str:
    """The statement; ``forward``: the outbox's INSERT (``rows`` and
    ``insert``, joined to the stored event), or None."""
    quote = connection.ops.quote_name
    stored = received_insert(1)  # a duplicate inserts nothing, and so writes nothing
    recorded = (
        f"recorded AS (UPDATE {quote(Subscription._meta.db_table)} SET {_RECORDED_SET} "
        "WHERE id = %s AND EXISTS (SELECT 1 FROM stored))"
    )
    if forward is None:
        return f"WITH {stored}, {recorded} SELECT (SELECT id FROM stored), NULL"
    rows, insert = forward
    return (
        f"WITH {stored}, {recorded}, {rows}, forwarded AS ({insert}) "
        "SELECT (SELECT id FROM stored), (SELECT seq FROM forwarded)"
    )


def _one_statement_scope() -> AbstractContextManager[Any]:
    """The statement is atomic by itself: outside a transaction it gets none
    (BEGIN and COMMIT would be two more round trips). Inside a caller's
    transaction it gets a savepoint, so a failure leaves that transaction
    usable, as the general path's ``atomic()`` does."""
    return transaction.atomic() if connection.in_atomic_block else nullcontext()


def event_store(received: ReceivedEvent, recorded: Recorded, delivery: HostDelivery | None) -> bool:
    """PostgreSQL: store ``received``, apply ``recorded`` and insert
    ``delivery`` (if any) in one statement; False when the event was stored
    before (nothing written). Sets ``received.id`` and ``delivery.seq``. The
    caller still owes the outbox's ``enqueue_after_commit`` for a pending
    delivery. Raises ``IntegrityError`` as an INSERT would (e.g. the
    subscription was deleted meanwhile)."""
    params = [*insert_params(received), *_recorded_params(recorded), recorded.subscription_id]
    forward = None
    if delivery is not None:
        # Only if the event was new (``stored`` returned its row).
        insert = deliveries_insert([delivery], join=_FORWARDED_JOIN)
        forward = (insert.rows, insert.insert)
        params += insert.params
    with _one_statement_scope(), connection.cursor() as cursor:
        cursor.execute(_event_store_sql(forward), params)
        received_id, seq = cursor.fetchone()
    if received_id is None:
        return False
    received.id = received_id
    received._state.adding = False
    if delivery is not None:
        delivery_written(delivery, seq)
    return True
