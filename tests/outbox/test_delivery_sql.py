"""The outbox's one INSERT (``outbox.delivery_sql``): what it writes is what
the ORM's own ``save()`` writes for the same row, on PostgreSQL and SQLite,
alone and composed into a caller's statement."""

from __future__ import annotations

from datetime import timedelta

from django.db import connection
from django.utils import timezone

from outbox.delivery_sql import deliveries_insert, deliveries_write, delivery_written
from outbox.emit import HostEmit, host_delivery_unsaved
from outbox.models import EndpointStatus, HostDelivery, HostEndpoint

# Differ by nature between two rows: identity, and the moment of writing.
_OWN = {"seq", "public_id", "webhook_id", "created_at"}


def _emits(host_id: str) -> list[tuple[HostEmit, str | None]]:
    """One of each kind of row: pending, held, no endpoint, disabled."""
    data = {"event": {"eventId": "evt_1", "data": {"ü": [1, 2.5, None]}}}
    return [
        (HostEmit(host_id=host_id, type="event.received", data=data, stream="sub_1"), "active"),
        (
            HostEmit(host_id=host_id, type="subscription.gap", data={}, stream="sub_2", hold=True),
            "active",
        ),
        (HostEmit(host_id=host_id, type="consent.updated", data={"scope": "hooks"}), None),
        (HostEmit(host_id=host_id, type="server.updated", data={}), EndpointStatus.DISABLED),
    ]


def _row(seq: int) -> dict:
    row = HostDelivery.objects.filter(seq=seq).values().get()
    assert row["created_at"] is not None
    return {k: v for k, v in row.items() if k not in _OWN}


def test_the_outbox_insert_writes_what_the_orm_writes(personas):
    now = timezone.now() - timedelta(seconds=3)
    for emit, endpoint in _emits(personas.acme.id):
        by_orm = host_delivery_unsaved(emit, endpoint_status=endpoint, now=now)
        by_orm.save(force_insert=True)
        by_sql = host_delivery_unsaved(emit, endpoint_status=endpoint, now=now)
        deliveries_write([by_sql])
        assert by_sql.seq > by_orm.seq and not by_sql._state.adding
        assert _row(by_sql.seq) == _row(by_orm.seq), emit.type
        # The object written is the row read back (seq, ids, body).
        stored = HostDelivery.objects.get(seq=by_sql.seq)
        assert (stored.public_id, stored.webhook_id, stored.body) == (
            by_sql.public_id,
            by_sql.webhook_id,
            by_sql.body,
        )


def test_a_burst_is_written_in_its_order(personas):
    now = timezone.now()
    rows = [
        host_delivery_unsaved(emit, endpoint_status=endpoint, now=now)
        for emit, endpoint in _emits(personas.acme.id)
    ]
    deliveries_write(rows)
    seqs = [r.seq for r in rows]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(rows)
    assert list(HostDelivery.objects.order_by("seq").values_list("type", flat=True)) == [
        "event.received",
        "subscription.gap",
        "consent.updated",
        "server.updated",
    ]


def test_a_caller_composes_the_insert_and_keeps_only_some_rows(personas):
    """As the subscriptions' one-statement paths do: the rows' CTE and the
    INSERT in the caller's statement, joined to what that statement chose
    (here a plain CTE, so it runs on SQLite too)."""
    HostEndpoint.objects.create(
        host=personas.acme, url="https://host.example.test/hook", secret_encrypted="unused"
    )
    now = timezone.now()
    rows = [
        host_delivery_unsaved(
            HostEmit(host_id=personas.acme.id, type="event.received", data={"n": n}, stream=stream),
            endpoint_status="active",
            now=now,
        )
        for n, stream in enumerate(["sub_a", "sub_b", "sub_c"])
    ]
    insert = deliveries_insert(
        rows, join="JOIN chosen ON chosen.subscription_id = delivery_rows.stream"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            # (SQLite has no INSERT inside a CTE: the INSERT is the statement.)
            f"WITH chosen(subscription_id) AS (VALUES (%s), (%s)), {insert.rows} {insert.insert}",
            ["sub_c", "sub_a", *insert.params],
        )
        written = dict((stream, seq) for seq, stream in cursor.fetchall())
    assert set(written) == {"sub_a", "sub_c"}
    assert written["sub_a"] < written["sub_c"]  # the given order, not the join's
    for row in rows:
        if row.stream in written:
            delivery_written(row, written[row.stream])
            assert _row(row.seq)["body"] == row.body and _row(row.seq)["status"] == "pending"
