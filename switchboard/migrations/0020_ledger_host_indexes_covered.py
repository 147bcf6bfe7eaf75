"""The ledger's host foreign keys lose their own indexes: the composite
indexes that start with ``host_id`` (``audit_host_idx`` on entries,
``audit_tree_leaf_unique`` on leaves) serve every lookup by host and the
foreign keys' checks, and each append wrote two more index entries per
table (PostgreSQL adds a ``varchar_pattern_ops`` twin for LIKE, never used).

Only the indexes are dropped: Django's own AlterField would also drop and
re-add the foreign keys, and re-adding one checks every row of the ledger.
"""

import django.db.models.deletion
from django.db import migrations, models

# As Django named them when 0001 created the foreign keys.
INDEXES = {
    "switchboard_auditentry": "switchboard_auditentry_host_id_951d3814",
    "switchboard_audittreeleaf": "switchboard_audittreeleaf_host_id_bc3bf11b",
}


def drop_indexes(apps, schema_editor):
    quote = schema_editor.quote_name
    for name in INDEXES.values():
        schema_editor.execute(f"DROP INDEX IF EXISTS {quote(name)}")
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"DROP INDEX IF EXISTS {quote(name + '_like')}")


def create_indexes(apps, schema_editor):
    quote = schema_editor.quote_name
    for table, name in INDEXES.items():
        schema_editor.execute(f"CREATE INDEX {quote(name)} ON {quote(table)} (host_id)")
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(
                f"CREATE INDEX {quote(name + '_like')} ON {quote(table)} "
                "(host_id varchar_pattern_ops)"
            )


class Migration(migrations.Migration):
    dependencies = [
        ("switchboard", "0019_ledger_frontier_size"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="auditentry",
                    name="host",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="audit_entries",
                        to="switchboard.host",
                    ),
                ),
                migrations.AlterField(
                    model_name="audittreeleaf",
                    name="host",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="audit_tree_leaves",
                        to="switchboard.host",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(drop_indexes, create_indexes)],
        ),
    ]
