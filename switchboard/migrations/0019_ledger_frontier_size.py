from django.db import migrations, models
from django.db.models import F


def frontier_covers_the_tree(apps, schema_editor):
    # Until now every append extended the compact range: it covers the
    # whole tree.
    head = apps.get_model("switchboard", "AuditChainHead")
    head.objects.update(frontier_size=F("tree_size"))


class Migration(migrations.Migration):
    dependencies = [("switchboard", "0018_user_groups")]

    operations = [
        migrations.AddField(
            model_name="auditchainhead",
            name="frontier_size",
            field=models.BigIntegerField(default=0),
        ),
        migrations.RunPython(frontier_covers_the_tree, migrations.RunPython.noop),
    ]
