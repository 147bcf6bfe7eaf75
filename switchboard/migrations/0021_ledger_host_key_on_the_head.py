"""The ledger's entries and leaves drop their foreign key constraints to the
host; the host's chain head keeps its own. An append writes its entry and
leaf only from the host's locked head row, so the head's key already proves
the host exists and keeps a host with a ledger from being deleted; the two
deferred checks ran at commit, while the host's lock was held, and locked
the host's row twice per append. Dropping a constraint reads no row; going
back re-adds both and checks every row of the ledger.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("switchboard", "0020_ledger_host_indexes_covered"),
    ]

    operations = [
        migrations.AlterField(
            model_name="auditentry",
            name="host",
            field=models.ForeignKey(
                db_constraint=False,
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
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="audit_tree_leaves",
                to="switchboard.host",
            ),
        ),
    ]
