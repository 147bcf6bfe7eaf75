from django.db import migrations

# The expression SearchVector("summary", config="simple") compiles to, so the
# staff explorer's search (switchboard.selectors.ledger_search) uses it.
CREATE = (
    "CREATE INDEX IF NOT EXISTS audit_summary_fts ON switchboard_auditentry "
    "USING gin (to_tsvector('simple'::regconfig, COALESCE(summary, '')))"
)
DROP = "DROP INDEX IF EXISTS audit_summary_fts"


def create(apps, schema_editor):
    # PostgreSQL only: other databases search by substring, without an index.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("switchboard", "0008_ledger_chain")]

    operations = [migrations.RunPython(create, drop)]
