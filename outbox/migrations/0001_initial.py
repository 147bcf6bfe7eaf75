"""The outbox models, taken over from ``subscriptions`` (whose migration 0002
renamed the tables): state only, the database already has them."""

import django.db.models.deletion
from django.db import migrations, models

import switchboard.ids


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("switchboard", "0002_event_types_and_hook_declarations"),
        ("subscriptions", "0002_outbox_moves_out"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="HostEndpoint",
                    fields=[
                        ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        (
                            "host",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                primary_key=True,
                                related_name="endpoint",
                                serialize=False,
                                to="switchboard.host",
                            ),
                        ),
                        ("url", models.URLField(max_length=2000)),
                        ("secret_encrypted", models.TextField()),
                        ("previous_secret_encrypted", models.TextField(blank=True)),
                        ("previous_secret_until", models.DateTimeField(blank=True, null=True)),
                        (
                            "status",
                            models.CharField(
                                choices=[("active", "Active"), ("disabled", "Disabled")],
                                default="active",
                                max_length=10,
                            ),
                        ),
                        ("disabled_reason", models.CharField(blank=True, max_length=200)),
                        ("disabled_at", models.DateTimeField(blank=True, null=True)),
                        ("last_success_at", models.DateTimeField(blank=True, null=True)),
                        ("last_failure_at", models.DateTimeField(blank=True, null=True)),
                        ("failing_since", models.DateTimeField(blank=True, null=True)),
                    ],
                    options={"abstract": False},
                ),
                migrations.CreateModel(
                    name="HostDelivery",
                    fields=[
                        ("seq", models.BigAutoField(primary_key=True, serialize=False)),
                        (
                            "public_id",
                            models.CharField(
                                default=switchboard.ids.new_dlv_id, max_length=40, unique=True
                            ),
                        ),
                        (
                            "webhook_id",
                            models.CharField(
                                default=switchboard.ids.new_msg_id, max_length=40, unique=True
                            ),
                        ),
                        ("stream", models.CharField(blank=True, default="", max_length=40)),
                        ("type", models.CharField(max_length=40)),
                        ("body", models.JSONField()),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("pending", "Pending"),
                                    ("delivered", "Delivered"),
                                    ("failed", "Failed"),
                                    ("held", "Held"),
                                    ("no_endpoint", "No Endpoint"),
                                    ("disabled", "Disabled"),
                                ],
                                default="pending",
                                max_length=12,
                            ),
                        ),
                        ("attempts", models.PositiveIntegerField(default=0)),
                        ("next_attempt_at", models.DateTimeField(blank=True, null=True)),
                        ("enqueued_at", models.DateTimeField(blank=True, null=True)),
                        ("claimed_until", models.DateTimeField(blank=True, null=True)),
                        ("delivered_at", models.DateTimeField(blank=True, null=True)),
                        ("last_status_code", models.IntegerField(blank=True, null=True)),
                        ("last_error_category", models.CharField(blank=True, max_length=40)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "host",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="deliveries",
                                to="switchboard.host",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name_plural": "host deliveries",
                        "ordering": ["-seq"],
                        "indexes": [
                            models.Index(
                                condition=models.Q(("status", "pending")),
                                fields=["next_attempt_at"],
                                name="host_delivery_due_idx",
                            ),
                            models.Index(fields=["host", "-seq"], name="host_delivery_log_idx"),
                            models.Index(fields=["stream", "seq"], name="host_delivery_stream_idx"),
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="DeliveryAttempt",
                    fields=[
                        ("id", models.BigAutoField(primary_key=True, serialize=False)),
                        ("at", models.DateTimeField(auto_now_add=True)),
                        ("status_code", models.IntegerField(blank=True, null=True)),
                        ("duration_ms", models.PositiveIntegerField(default=0)),
                        ("error_category", models.CharField(blank=True, max_length=40)),
                        (
                            "delivery",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="tries",
                                to="outbox.hostdelivery",
                            ),
                        ),
                    ],
                    options={"ordering": ["id"]},
                ),
            ],
        ),
    ]
