"""The INSERT of received events in the one-statement paths (PostgreSQL's
data-modifying CTEs of the webhook receiver, ``receiver.sql``, and the push
intake, ``arrivals_sql``): one definition of "stored once per eventId".

The rows' values are the ORM's own (``switchboard.sql_rows``), so the
general path's ``save()`` and ``bulk_create`` write the same rows.
"""

from __future__ import annotations

from functools import lru_cache

from django.db import connection

from subscriptions.models import ReceivedEvent
from switchboard.sql_rows import columns, inserted_fields, typed_placeholders


@lru_cache(maxsize=64)
def received_insert(count: int) -> str:
    """Two parts of a ``WITH`` for ``count`` events (their values,
    ``insert_params`` of each, in order): ``received_rows``, and ``stored``,
    which returns ``id, subscription_id`` of each event that was new.

    The eventId constraint (``received_unique_event_id``) decides what is new,
    concurrent writers included: a duplicate's writer waits for the first
    one's commit and inserts nothing (``ON CONFLICT DO NOTHING``), which is
    how a replay shows."""
    quote = connection.ops.quote_name
    fields = inserted_fields(ReceivedEvent)
    return (
        f"received_rows({columns(fields)}) AS (VALUES "
        + ", ".join([f"({typed_placeholders(fields)})"] * count)
        + "), "
        f"stored AS (INSERT INTO {quote(ReceivedEvent._meta.db_table)} ({columns(fields)}) "
        "SELECT * FROM received_rows "
        "ON CONFLICT (subscription_id, event_id) WHERE event_id IS NOT NULL DO NOTHING "
        "RETURNING id, subscription_id)"
    )
