"""The host outbox leaves this app for ``outbox`` with its rows.

A delivery's subscription becomes its ``stream`` (the subscription's id, no
foreign key: the outbox sits below the apps). The tables are renamed, not
recreated, so nothing recorded is lost; ``outbox.0001_initial`` takes the
models over in Django's state.
"""

from django.db import migrations, models
from django.db.models import F, Value
from django.db.models.functions import Coalesce


def subscription_to_stream(apps, schema_editor):
    HostDelivery = apps.get_model("subscriptions", "HostDelivery")
    HostDelivery.objects.exclude(subscription=None).update(
        stream=Coalesce(F("subscription_id"), Value(""))
    )


def stream_to_subscription(apps, schema_editor):
    HostDelivery = apps.get_model("subscriptions", "HostDelivery")
    Subscription = apps.get_model("subscriptions", "Subscription")
    known = Subscription.objects.values("id")
    HostDelivery.objects.filter(stream__in=known).update(subscription_id=F("stream"))


class Migration(migrations.Migration):
    dependencies = [("subscriptions", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="hostdelivery",
            name="stream",
            field=models.CharField(blank=True, default="", max_length=40),
        ),
        migrations.RunPython(subscription_to_stream, stream_to_subscription),
        migrations.RemoveIndex(model_name="hostdelivery", name="host_delivery_sub_idx"),
        migrations.RemoveField(model_name="hostdelivery", name="subscription"),
        migrations.AddIndex(
            model_name="hostdelivery",
            index=models.Index(fields=["stream", "seq"], name="host_delivery_stream_idx"),
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.AlterModelTable(name="hostendpoint", table="outbox_hostendpoint"),
                migrations.AlterModelTable(name="hostdelivery", table="outbox_hostdelivery"),
                migrations.AlterModelTable(name="deliveryattempt", table="outbox_deliveryattempt"),
            ],
            state_operations=[
                migrations.DeleteModel(name="DeliveryAttempt"),
                migrations.DeleteModel(name="HostDelivery"),
                migrations.DeleteModel(name="HostEndpoint"),
            ],
        ),
    ]
