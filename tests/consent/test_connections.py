"""The user's connections on "Authorized servers": the account each server
acts as, its last use, its calls in the last 30 days, and "Disconnect", which
removes the user's own credentials (recorded; the host told)."""

from __future__ import annotations

import json
from datetime import timedelta

from django.test import Client
from django.utils import timezone

from consent.as_of import grants_as_of
from consent.models import Grant, Injection
from outbox.models import HostDelivery
from switchboard.models import AuditEntry, UserServerCredential
from tests.consent.support import allow_all, declaring_server, open_request


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def give_credentials(personas, server, user="alice", token="Bearer alice-secret"):
    answer = personas.acme_api.put(
        f"/users/{user}/servers/{server.id}/credentials", {"headers": {"Authorization": token}}
    )
    assert answer.status_code == 204


def call(personas, server, user, *, days_ago: float = 0, source="console"):
    return Injection.objects.create(
        created_at=timezone.now() - timedelta(days=days_ago),
        host=personas.acme,
        user=user,
        server=server,
        conversation_id="c1",
        message_id=f"m-{days_ago}-{source}",
        source=source,
        outcome="ok",
    )


def connection_of(page: str, server) -> str:
    start = page.index(f'data-connection="{server.id}"')
    return page[start : page.index("</div>", start)]


def test_each_server_says_whose_account_it_acts_as_and_how_much_it_was_used(personas):
    own = declaring_server(personas.acme, name="Own")
    shared = declaring_server(personas.acme, name="Shared")
    give_credentials(personas, own)
    allow_all(open_request(personas, own, ["conversation:read"]))
    allow_all(open_request(personas, shared, ["conversation:read"]))
    call(personas, own, personas.alice, days_ago=1)
    call(personas, own, personas.alice, days_ago=29)
    call(personas, own, personas.alice, days_ago=31)  # outside the window
    call(personas, own, personas.bob, days_ago=1)  # someone else's
    last = call(personas, own, personas.alice, days_ago=0.01)

    page = signed_in(personas.alice).get("/consent/servers/").content.decode()

    mine = connection_of(page, own)
    assert 'data-acts-as="user"' in mine and "your own account" in mine
    assert 'data-calls="3"' in mine
    assert last.created_at.isoformat().replace("+00:00", "Z")[:19] in mine
    assert 'aria-label="Disconnect your account from Own"' in mine
    theirs = connection_of(page, shared)
    assert 'data-acts-as="host"' in theirs and "Acme’s account" in theirs
    assert 'data-calls="0"' in theirs and "never" in theirs
    assert "Disconnect" not in theirs
    assert "alice-secret" not in page
    # Staff see the same facts, without the user's button.
    staff = signed_in(personas.admin).get(f"/staff/consents/users/{personas.alice.id}/")
    staff_page = staff.content.decode()
    assert 'data-acts-as="user"' in connection_of(staff_page, own)
    assert "Disconnect" not in connection_of(staff_page, own)


def test_disconnect_removes_the_credentials_records_it_and_tells_the_host(personas):
    server = declaring_server(personas.acme)
    give_credentials(personas, server)
    give_credentials(personas, server, user="bob", token="Bearer bob")
    allow_all(open_request(personas, server, ["conversation:read", "hooks"]))
    assert set(Grant.objects.filter(user=personas.alice).values_list("identity", flat=True)) == {
        "user"
    }
    alice = signed_in(personas.alice)

    answer = alice.post(f"/consent/servers/{server.id}/disconnect")

    assert answer.status_code == 302
    assert not UserServerCredential.objects.filter(user=personas.alice, server=server).exists()
    assert UserServerCredential.objects.filter(user=personas.bob, server=server).exists()
    grants = Grant.objects.filter(user=personas.alice)
    assert {(g.status, g.identity) for g in grants} == {("active", "host")}
    removed = AuditEntry.objects.get(kind="user.credentials_removed", user_id=personas.alice.id)
    assert removed.detail == {"header_names": ["Authorization"]}
    assert removed.actor_id == personas.alice.id
    changed = AuditEntry.objects.filter(kind="consent.identity_changed")
    assert sorted(e.detail["scope"] for e in changed) == ["conversation:read", "hooks"]
    assert "alice-secret" not in json.dumps([e.detail for e in AuditEntry.objects.all()])
    told = [
        d.body["data"]
        for d in HostDelivery.objects.filter(host=personas.acme, type="consent.updated")
        if d.body["data"].get("reason") == "disconnected"
    ]
    assert sorted(d["scope"] for d in told) == ["conversation:read", "hooks"]
    assert {(d["user"], d["status"], d["identity"]) for d in told} == {("alice", "active", "host")}
    # The page says so, and the ledger's "as of" view follows.
    page = alice.get("/consent/servers/").content.decode()
    assert 'data-acts-as="host"' in connection_of(page, server)
    assert {g.identity for g in grants_as_of(user=personas.alice, at=timezone.now())} == {"host"}
    # Again: nothing left to remove, nothing recorded.
    again = alice.post(f"/consent/servers/{server.id}/disconnect", HTTP_HX_REQUEST="true")
    assert again.status_code == 200
    assert AuditEntry.objects.filter(kind="user.credentials_removed").count() == 1
    # Another host's user cannot reach this server at all.
    assert (
        signed_in(personas.charlie).post(f"/consent/servers/{server.id}/disconnect").status_code
        == 404
    )


def test_events_the_server_delivered_count_among_its_calls(personas):
    from subscriptions.models import ReceivedEvent
    from tests.subscriptions.support import make_subscription

    server = declaring_server(personas.acme)
    allow_all(open_request(personas, server, ["events"], event_types=["build.finished"]))
    sub = make_subscription(personas.alice, server)
    for n, kind in enumerate(["event", "event", "gap"]):
        ReceivedEvent.objects.create(
            subscription=sub, kind=kind, webhook_id=f"w{n}", event_id=f"e{n}", body={}
        )
    bobs = make_subscription(personas.bob, server, arguments={"repo": "acme/other"})
    ReceivedEvent.objects.create(
        subscription=bobs, kind="event", webhook_id="b0", event_id="b0", body={}
    )
    page = signed_in(personas.alice).get("/consent/servers/").content.decode()
    assert 'data-calls="2"' in connection_of(page, server)  # the gap is no delivery
