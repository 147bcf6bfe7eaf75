"""Retention per host for every kind of kept content (docs/configuration.md, the `…_RETENTION` rows): received
event payloads, bodies of delivered host deliveries, injected text of
conversations and hooks; each purged past the host's days (or the
default), each batch recorded in the ledger, the ledger's chain intact."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from consent.models import Injection
from consent.services import injections_purge_due
from hooks.services import lifecycle_purge_expired
from outbox.models import HostDelivery
from outbox.services.retention import delivery_bodies_purge
from subscriptions.models import ReceivedEvent
from subscriptions.services.retention import event_payloads_purge
from switchboard.models import AuditEntry
from switchboard.services.ledger_chain import ledger_verify
from tests.subscriptions.support import make_event_server, make_subscription

OLD = timedelta(days=10)


def _purges(host, kind):
    return list(AuditEntry.objects.filter(host=host, kind="retention.purged", detail__kind=kind))


def test_event_payloads_go_after_the_hosts_days_and_waiting_digests_keep_theirs(personas):
    server = make_event_server(personas.acme)
    sub = make_subscription(personas.alice, server)

    def received(n, **fields):
        event = ReceivedEvent.objects.create(
            subscription=sub,
            kind="event",
            webhook_id=f"w{n}",
            event_id=f"e{n}",
            body={"data": n},
            **fields,
        )
        ReceivedEvent.objects.filter(pk=event.pk).update(received_at=timezone.now() - OLD)
        return event

    old, waiting = received(1), received(2, digest_state="waiting")
    assert event_payloads_purge() == 0  # the default keeps 30 days
    personas.acme.retention_days = {"event_payloads": 7}
    personas.acme.save()
    assert event_payloads_purge() == 1
    old.refresh_from_db()
    waiting.refresh_from_db()
    assert old.body == {} and waiting.body == {"data": 2}
    [record] = _purges(personas.acme, "event_payloads")
    assert record.detail["count"] == 1 and record.detail["first"] == str(old.id)
    assert ledger_verify(host_id=personas.acme.id).ok


def test_delivered_bodies_go_and_undelivered_ones_stay(personas):
    def delivery(status):
        row = HostDelivery.objects.create(
            host=personas.acme, type="ping", body={"sent": status}, status=status
        )
        HostDelivery.objects.filter(pk=row.pk).update(created_at=timezone.now() - OLD)
        return row

    sent, failed = delivery("delivered"), delivery("failed")
    personas.acme.retention_days = {"delivery_bodies": 7}
    personas.acme.save()
    assert delivery_bodies_purge() == 1
    sent.refresh_from_db()
    failed.refresh_from_db()
    assert sent.body == {} and failed.body == {"sent": "failed"}  # may still be resent
    assert _purges(personas.acme, "delivery_bodies")


def test_injected_text_of_conversations_and_hooks_follows_the_hosts_days(personas, settings):
    from hooks.models import HookFiring
    from hooks.services import lifecycle_records_write
    from tests.hooks.conftest import COMMIT_HOOK, approve, hooked_server

    server = make_event_server(personas.acme)
    Injection.objects.create(
        created_at=timezone.now() - OLD,
        host=personas.acme,
        user=personas.alice,
        server=server,
        conversation_id="c",
        message_id="m",
        source="console",
        outcome="ok",
        text="secret plans",
        chars=12,
    )
    hooky = hooked_server(personas.acme, [COMMIT_HOOK])
    approve(personas.alice, hooky, COMMIT_HOOK)
    personas.acme_api.post(
        "/sessions/s/lifecycle",
        {
            "user": "alice",
            "event": "post_tool_use",
            "servers": [hooky.id],
            "tool_name": "Bash",
            "tool_input": "git commit",
        },
    )
    lifecycle_records_write()
    HookFiring.objects.update(created_at=timezone.now() - OLD)
    assert injections_purge_due() == 0 and lifecycle_purge_expired() == 0  # 30-day default
    personas.acme.retention_days = {"injected_text": 7}
    personas.acme.save()
    assert injections_purge_due() == 1 and lifecycle_purge_expired() == 1
    assert Injection.objects.get().text == "" and HookFiring.objects.get().text == ""
    assert len(_purges(personas.acme, "injected_text")) == 2
    # Another host's text follows its own (default) days.
    assert ledger_verify(host_id=personas.acme.id).ok
