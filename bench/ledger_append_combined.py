"""A shape of the ledger append that is NOT the product's, measured beside
it by ``bench/ledger_append.py --combined`` to learn whether batching one
host's appends pays (docs/transparency.md, *One host's appends*; figures
in bench/README.md). PostgreSQL only; its table and function live in the
bench's throwaway database.

Writers do not queue on the host's head row one by one. Each writer:

1. inserts its entry, hashed, as a pending row: no lock, and its commit's
   WAL flush shares a flush with other writers' commits;
2. then calls a PL/pgSQL function that takes the host's advisory lock and
   moves EVERY pending row of the host into the ledger as one batch: entry
   ids taken in pending order (so the leaves stay in id order, as the
   contract fixes), the chain hashed over the batch, the leaves and the
   head written, one flush for the batch. A writer whose row an earlier
   batch took finds nothing to move: its call writes nothing, so its
   commit has no flush to wait for (an advisory lock writes no WAL; a row
   lock does);
3. gets back which entry its row became.

Not here, and a product would need them: a sweep for pending rows a
crashed writer left, reads that show pending rows, SQLite.
"""

from __future__ import annotations

import uuid
from functools import cache

from django.db import connection

from switchboard.models import AuditChainHead, AuditEntry, AuditTreeLeaf
from switchboard.services.ledger_append_sql import chain_hash_sql
from switchboard.services.ledger_chain import content_hash, detail_hash
from switchboard.sql_rows import columns, insert_params, inserted_fields, typed_placeholders

PENDING = "bench_ledger_pending"
MOVED = "bench_ledger_moved"
MOVE = "bench_ledger_move"
# Written when the batch is chained, not by the writer.
_CHAINED = ("prev_hash", "chain_hash", "leaf_index")


def _pending_fields():
    return [f for f in inserted_fields(AuditEntry) if f.name not in _CHAINED]


def create_tables() -> None:
    entries = connection.ops.quote_name(AuditEntry._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE {PENDING} (LIKE {entries} INCLUDING DEFAULTS INCLUDING IDENTITY)"
        )
        cursor.execute(
            f"ALTER TABLE {PENDING} ADD PRIMARY KEY (id), ADD COLUMN token uuid, "
            + ", ".join(f"DROP COLUMN {name}" for name in _CHAINED)
        )
        cursor.execute(f"CREATE INDEX ON {PENDING} (host_id, id)")
        cursor.execute(f"CREATE TABLE {MOVED} (token uuid PRIMARY KEY, entry_id bigint)")
        _create_move_function(cursor)


def _move_statement() -> str:
    """The batch moved, for the host in ``p_host`` (a PL/pgSQL variable)."""
    quote = connection.ops.quote_name
    entries = quote(AuditEntry._meta.db_table)
    leaves = quote(AuditTreeLeaf._meta.db_table)
    heads = quote(AuditChainHead._meta.db_table)
    selected = []
    for field in inserted_fields(AuditEntry):
        if field.name == "prev_hash":
            selected.append("before.chain_hash")
        elif field.name == "chain_hash":
            selected.append("after.chain_hash")
        elif field.name == "leaf_index":
            selected.append("head.tree_size + batch.n - 1")
        else:
            selected.append(f"batch.{quote(field.column)}")
    return (
        "WITH RECURSIVE "
        f"head AS (SELECT chain_hash, tree_size FROM {heads} WHERE host_id = p_host), "
        "batch AS (SELECT row_number() OVER (ORDER BY id) AS n, * "
        f"FROM {PENDING} WHERE host_id = p_host), "
        "chain(n, chain_hash) AS (SELECT 0::bigint, chain_hash::text FROM head UNION ALL "
        f"SELECT batch.n, {chain_hash_sql('chain.chain_hash', 'batch.content_hash')} "
        "FROM chain JOIN batch ON batch.n = chain.n + 1), "
        f"gone AS (DELETE FROM {PENDING} USING batch WHERE {PENDING}.id = batch.id), "
        f"appended AS (INSERT INTO {entries} ({columns(inserted_fields(AuditEntry))}) "
        f"SELECT {', '.join(selected)} FROM batch "
        "JOIN chain after ON after.n = batch.n JOIN chain before ON before.n = batch.n - 1 "
        "CROSS JOIN head ORDER BY batch.n "
        "RETURNING id, host_id, leaf_index, content_hash, chain_hash), "
        f"leaf AS (INSERT INTO {leaves} (host_id, {quote('index')}, entry_id, content_hash) "
        "SELECT host_id, leaf_index, id, content_hash FROM appended), "
        f"moved AS (INSERT INTO {MOVED} (token, entry_id) SELECT batch.token, appended.id "
        "FROM appended CROSS JOIN head "
        "JOIN batch ON appended.leaf_index = head.tree_size + batch.n - 1) "
        f"UPDATE {heads} SET entry_id = last.id, chain_hash = last.chain_hash, "
        "tree_size = last.leaf_index + 1 "
        "FROM (SELECT id, chain_hash, leaf_index FROM appended "
        "ORDER BY leaf_index DESC LIMIT 1) last "
        f"WHERE {heads}.host_id = p_host"
    )


def _create_move_function(cursor) -> None:
    # A function, so its statements are planned once per connection, and
    # each takes its snapshot once the lock before it is held (a volatile
    # function's statements each see a new snapshot). Only a writer that
    # finds rows pending writes anything.
    cursor.execute(
        f"""
        CREATE FUNCTION {MOVE}(p_host text, p_token uuid) RETURNS bigint
        LANGUAGE plpgsql VOLATILE AS $move$
        DECLARE
            moved_to bigint;
        BEGIN
            PERFORM pg_advisory_xact_lock(hashtextextended(p_host, 0));
            IF EXISTS (SELECT 1 FROM {PENDING} WHERE host_id = p_host) THEN
                {_move_statement()};
            END IF;
            SELECT entry_id INTO moved_to FROM {MOVED} WHERE token = p_token;
            RETURN moved_to;
        END
        $move$
        """
    )


@cache
def _insert_statement() -> str:
    pending = _pending_fields()
    return (
        f"INSERT INTO {PENDING} ({columns(pending)}, token) "
        f"VALUES ({typed_placeholders(pending)}, %s::uuid)"
    )


def ledger_append(entry: AuditEntry) -> AuditEntry:
    entry.detail_hash = detail_hash(entry.detail)
    entry.content_hash = content_hash(entry)
    token = str(uuid.uuid4())
    params = [
        value
        for field, value in zip(inserted_fields(AuditEntry), insert_params(entry), strict=True)
        if field.name not in _CHAINED
    ]
    with connection.cursor() as cursor:
        cursor.execute(_insert_statement(), [*params, token])
        cursor.execute(f"SELECT {MOVE}(%s, %s::uuid)", [entry.host_id, token])
        (entry.id,) = cursor.fetchone()
    entry._state.adding = False
    return entry
