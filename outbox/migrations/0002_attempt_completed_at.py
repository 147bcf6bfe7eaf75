"""Attempts are written before the POST and completed after it."""

from django.db import migrations, models
from django.db.models import F


def earlier_attempts_completed(apps, schema_editor):
    apps.get_model("outbox", "DeliveryAttempt").objects.update(completed_at=F("at"))


class Migration(migrations.Migration):
    dependencies = [("outbox", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="deliveryattempt",
            name="completed_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(earlier_attempts_completed, migrations.RunPython.noop),
    ]
