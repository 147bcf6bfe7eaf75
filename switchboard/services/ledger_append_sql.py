"""A ledger append as one statement (PostgreSQL): the host's chain head
locked, the entry inserted with its link and leaf index read from the head
and its chain hash computed by PostgreSQL, the leaf recorded, the head moved.

The host's lock is then held for this statement and the commit, instead of
a round trip per read and write with Python in between: one host's writers
take turns at the speed of PostgreSQL, not of their clients. What each
value is stays defined once: the entry's columns come from the model's own
fields (``switchboard.sql_rows``), the content hash from
``ledger_chain.content_hash``, and the chain hash is
``ledger_chain.chain_hash`` written in SQL: SHA-256 of
``<previous chain hash>:<content hash>`` as lowercase hex (the tests hold
the two to each other by verifying chains this statement wrote).
"""

from __future__ import annotations

from functools import cache

from django.db import connection

from switchboard.models import AuditChainHead, AuditEntry, AuditTreeLeaf
from switchboard.sql_rows import columns, insert_params, inserted_fields


def chain_hash_sql(prev_hash: str, content_hash: str) -> str:
    """``ledger_chain.chain_hash`` as a PostgreSQL expression over two SQL
    expressions."""
    return f"encode(sha256(convert_to({prev_hash} || ':' || {content_hash}, 'UTF8')), 'hex')"


# Read from the locked head (``locked``) inside the statement, not sent.
_FROM_HEAD = {
    "prev_hash": "locked.chain_hash",
    "chain_hash": chain_hash_sql("locked.chain_hash", "%s"),
    "leaf_index": "locked.tree_size",
}


@cache
def _statement() -> str:
    quote = connection.ops.quote_name
    fields = inserted_fields(AuditEntry)
    values = [
        _FROM_HEAD.get(f.name) or f"%s::{f.cast_db_type(connection) or f.db_type(connection)}"
        for f in fields
    ]
    entries = quote(AuditEntry._meta.db_table)
    leaves = quote(AuditTreeLeaf._meta.db_table)
    heads = quote(AuditChainHead._meta.db_table)
    return (
        f"WITH locked AS (SELECT chain_hash, tree_size FROM {heads} "
        "WHERE host_id = %s FOR NO KEY UPDATE), "
        f"appended AS (INSERT INTO {entries} ({columns(fields)}) "
        f"SELECT {', '.join(values)} FROM locked "
        "RETURNING id, prev_hash, chain_hash, leaf_index), "
        f"leaf AS (INSERT INTO {leaves} (host_id, {quote('index')}, entry_id, content_hash) "
        "SELECT %s, appended.leaf_index, appended.id, %s FROM appended) "
        f"UPDATE {heads} SET entry_id = appended.id, chain_hash = appended.chain_hash, "
        "tree_size = appended.leaf_index + 1 "
        f"FROM appended WHERE {heads}.host_id = %s "
        "RETURNING appended.id, appended.prev_hash, appended.chain_hash, appended.leaf_index"
    )


def ledger_append_statement(entry: AuditEntry) -> bool:
    """Append ``entry`` (its ``detail_hash`` and ``content_hash`` set) in one
    statement; False when its host has no chain head yet (nothing written).
    Sets the entry's id, link and leaf index as written."""
    params: list = [entry.host_id]
    for field, value in zip(inserted_fields(AuditEntry), insert_params(entry), strict=True):
        if field.name == "chain_hash":
            params.append(entry.content_hash)
        elif field.name not in _FROM_HEAD:
            params.append(value)
    params += [entry.host_id, entry.content_hash, entry.host_id]
    with connection.cursor() as cursor:
        cursor.execute(_statement(), params)
        row = cursor.fetchone()
    if row is None:
        return False
    entry.id, entry.prev_hash, entry.chain_hash, entry.leaf_index = row
    entry._state.adding = False
    entry._state.db = connection.alias
    return True
