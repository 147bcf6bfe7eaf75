"""The outbox left the subscriptions app with its rows: a database written
before the move keeps every endpoint, delivery and attempt, and a delivery's
subscription becomes its stream."""

from __future__ import annotations

import pytest

from tests.migrations import before, migrate, newest


def _before_the_move():
    """Every app at its newest migration but subscriptions (and outbox, which
    depends on its move), so the historical models match the other tables."""
    return before(("subscriptions", "0001_initial"), also_back=["outbox"])


@pytest.mark.django_db(transaction=True)
def test_rows_written_before_the_move_are_in_the_outbox_after_it():
    old = migrate(_before_the_move())
    host = old.get_model("switchboard", "Host").objects.create(name="acme-before-move")
    user = old.get_model("switchboard", "User").objects.create(
        username="u-before-move", host=host, external_id="u1"
    )
    server = old.get_model("switchboard", "McpServer").objects.create(host=host, name="s")
    sub = old.get_model("subscriptions", "Subscription").objects.create(
        host=host,
        user=user,
        server=server,
        event_name="alert.fired",
        arguments_key="k",
        token="t-before-move",
        secret_encrypted="x",
    )
    old.get_model("subscriptions", "HostEndpoint").objects.create(
        host=host, url="https://host.example/hook", secret_encrypted="x"
    )
    Delivery = old.get_model("subscriptions", "HostDelivery")
    tied = Delivery.objects.create(
        host=host, subscription=sub, type="event.received", body={"n": 1}
    )
    loose = Delivery.objects.create(host=host, type="ping", body={})
    old.get_model("subscriptions", "DeliveryAttempt").objects.create(
        delivery=tied, status_code=500, error_category="http_5xx"
    )

    migrate(newest())

    from outbox.models import DeliveryAttempt, HostDelivery, HostEndpoint

    assert HostEndpoint.objects.get(host_id=host.id).url == "https://host.example/hook"
    moved = {d.seq: d for d in HostDelivery.objects.filter(host_id=host.id)}
    assert moved[tied.seq].stream == sub.id and moved[tied.seq].body == {"n": 1}
    assert moved[tied.seq].public_id == tied.public_id
    assert moved[loose.seq].stream == ""
    (attempt,) = DeliveryAttempt.objects.filter(delivery_id=tied.seq)
    assert attempt.status_code == 500
    # New rows continue the sequence instead of colliding with the moved ones.
    fresh = HostDelivery.objects.create(host_id=host.id, type="ping", body={})
    assert fresh.seq > max(moved)
