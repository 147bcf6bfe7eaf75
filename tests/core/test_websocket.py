"""The live channel: authenticated in connect(), origin-checked, and scoped
to the user's own group (and the host's staff group for staff)."""

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application
from switchboard.actors import Actor
from switchboard.services.audit import audit_record

ORIGIN = (b"origin", b"http://127.0.0.1:8000")


def _session_cookie(user) -> bytes:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def _connect(user=None, origin=ORIGIN):
    headers = [origin]
    if user is not None:
        headers.append((b"cookie", await sync_to_async(_session_cookie)(user)))
    communicator = WebsocketCommunicator(application, "/ws/live/", headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


@pytest.mark.django_db(transaction=True)
async def test_anonymous_and_foreign_origin_connections_are_refused(tpersonas):
    communicator, connected = await _connect(None)
    assert not connected
    await communicator.disconnect()
    communicator, connected = await _connect(
        tpersonas.alice, origin=(b"origin", b"https://evil.test")
    )
    assert not connected
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_user_receives_their_own_activity_only(tpersonas):
    alice, _ = await _connect(tpersonas.alice)
    bob, _ = await _connect(tpersonas.bob)
    try:
        await sync_to_async(audit_record)(
            host_id=tpersonas.acme.id,
            kind="test.ping",
            actor=Actor.system(),
            user=tpersonas.alice,
            summary="something about <alice>",
        )
        html = await alice.receive_from(timeout=5)
        assert 'id="activity-entries"' in html and "something about &lt;alice&gt;" in html
        assert await bob.receive_nothing(timeout=0.5)
    finally:
        await alice.disconnect()
        await bob.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_staff_receive_their_hosts_activity_but_not_other_hosts(tpersonas):
    auditor, connected = await _connect(tpersonas.auditor)
    assert connected
    try:
        await sync_to_async(audit_record)(
            host_id=tpersonas.acme.id,
            kind="test.ping",
            actor=Actor.system(),
            user=tpersonas.bob,
            summary="bob did a thing",
        )
        # The feed's entry and the ledger page's cue to re-read itself: in
        # one message or two (updates waiting together go out together).
        received = await auditor.receive_from(timeout=5)
        if 'data-live-topics="audit"' not in received:
            received += await auditor.receive_from(timeout=5)
        assert "bob did a thing" in received, received
        assert 'data-live-topics="audit"' in received, received
        await sync_to_async(audit_record)(
            host_id=tpersonas.bravo.id,
            kind="test.ping",
            actor=Actor.system(),
            user=tpersonas.charlie,
            summary="charlie",
        )
        assert await auditor.receive_nothing(timeout=0.5)
    finally:
        await auditor.disconnect()


def test_a_ledger_entry_names_the_pages_that_show_what_it_records():
    from switchboard.live import ledger_topics
    from switchboard.models import AuditEntry

    def topics(kind: str, server_id: str = "") -> list[str]:
        return ledger_topics(AuditEntry(kind=kind, server_id=server_id))

    assert topics("user.created") == ["audit", "ledger:user"]
    assert topics("api_key.revoked") == ["audit", "ledger:api_key"]
    assert topics("policy.retention_changed") == ["audit", "ledger:policy"]
    assert topics("server.updated", "srv_1") == ["audit", "ledger:server", "server:srv_1"]
    assert topics("sso.saved") == ["audit", "ledger:sso"]
    assert topics("staff.role_changed") == ["audit", "ledger:staff"]
    assert topics("hook.injected", "srv_1") == ["audit"]  # no page follows these by kind
