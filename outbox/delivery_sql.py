"""The outbox's INSERT, as SQL a caller composes: the one way its rows are
written.

Every outbox row is made by ``emit.host_delivery_unsaved`` (status, body, due
time) and written by the INSERT built here, from the model's own fields
(``switchboard.sql_rows``: defaults, ``auto_now_add``, JSON adaptation), so
a new column is added to the model, and to ``host_delivery_unsaved`` if the
emit decides its value — nowhere else:

- ``host_event_emit`` and ``host_events_emit`` run it as a statement of its
  own (``deliveries_write``), on PostgreSQL and SQLite;
- the subscriptions' one-statement paths on PostgreSQL (the webhook
  receiver, the push intake) put its two parts in their data-modifying CTE,
  joined to the events that were new, and set ``seq`` with
  ``delivery_written``.

The caller owes ``emit.enqueue_after_commit`` for the ``pending`` rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.db import connection

from outbox.models import HostDelivery
from switchboard.sql_rows import columns, insert_params, inserted_fields, typed_placeholders

# The name of the rows' CTE; ``join`` clauses refer to ``delivery_rows.stream``.
ROWS = "delivery_rows"


@dataclass(frozen=True)
class DeliveriesInsert:
    """An INSERT of outbox rows, in two parts for a caller's ``WITH``."""

    rows: str  # ``delivery_rows(n, <columns>) AS (VALUES ...)``: the rows, numbered
    insert: str  # ``INSERT ... SELECT ... FROM delivery_rows ... RETURNING seq, stream``
    params: list[Any]  # the rows' values, for ``rows``

    @property
    def statement(self) -> str:
        """The INSERT as a statement of its own."""
        return f"WITH {self.rows} {self.insert}"


@lru_cache(maxsize=128)
def _sql(count: int, join: str) -> tuple[str, str]:
    quote = connection.ops.quote_name
    fields = inserted_fields(HostDelivery)
    names = [quote(str(f.column)) for f in fields]
    number = "%s::integer" if connection.vendor == "postgresql" else "%s"
    rows = (
        f"{ROWS}(n, {columns(fields)}) AS (VALUES "
        + ", ".join([f"({number}, {typed_placeholders(fields)})"] * count)
        + ")"
    )
    insert = (
        f"INSERT INTO {quote(HostDelivery._meta.db_table)} ({', '.join(names)}) "
        f"SELECT {', '.join(f'{ROWS}.{n}' for n in names)} FROM {ROWS} {join} "
        # ``seq`` follows the given order.
        f"ORDER BY {ROWS}.n RETURNING seq, stream"
    )
    return rows, insert


def deliveries_insert(deliveries: list[HostDelivery], *, join: str = "") -> DeliveriesInsert:
    """The INSERT of ``deliveries`` (unsaved, from ``host_delivery_unsaved``),
    in their order. ``join``: a clause that keeps only some of them, e.g.
    ``JOIN stored ON stored.subscription_id = delivery_rows.stream`` (the
    rows of the events a CTE inserted)."""
    rows, insert = _sql(len(deliveries), join)
    params: list[Any] = []
    for n, delivery in enumerate(deliveries):
        params += [n, *insert_params(delivery)]
    return DeliveriesInsert(rows=rows, insert=insert, params=params)


def delivery_written(delivery: HostDelivery, seq: int) -> None:
    """``delivery`` is now the row ``seq``."""
    delivery.seq = seq
    delivery._state.adding = False
    delivery._state.db = connection.alias


def deliveries_write(deliveries: list[HostDelivery]) -> list[HostDelivery]:
    """Write ``deliveries`` in one statement, in their order; sets ``seq``."""
    if not deliveries:
        return deliveries
    insert = deliveries_insert(deliveries)
    with connection.cursor() as cursor:
        cursor.execute(insert.statement, insert.params)
        seqs = sorted(seq for seq, _stream in cursor.fetchall())
    for delivery, seq in zip(deliveries, seqs, strict=True):
        delivery_written(delivery, seq)
    return deliveries
