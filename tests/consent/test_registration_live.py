"""Consent follows the server, against the reference MCP server (a real process
over Streamable HTTP): a changed URL or renamed credentials stop the very next
message until the user approves again; "Disconnect" makes the server see the
host's account (or nobody) from the next message on."""

from __future__ import annotations

import pytest
from django.test import Client

from consent.models import ConsentRequest
from outbox.models import HostDelivery
from switchboard.services.servers import server_register
from tests.consent.support import allow_all, open_request
from tests.factories import SYSTEM

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


def registered(personas, refserver, headers=None):
    server = server_register(
        host=personas.acme, name="Ref", actor=SYSTEM, url=refserver.mcp_url, headers=headers
    )
    assert server.status == "active" and server.conversation_events, server.last_error_detail
    return server


def send(personas, message_id, user="alice"):
    answer = personas.acme_api.post(
        "/conversations/c1/messages",
        {"user": user, "message_id": message_id, "content": "What about the database?"},
    )
    assert answer.status_code == 200, answer.json()
    return answer.json()


def received(refserver):
    return {m["messageId"]: m["principal"] for m in refserver.received()["userMessages"]}


def told_suspended(personas, server):
    return [
        d.body["data"]
        for d in HostDelivery.objects.filter(host=personas.acme, type="consent.updated")
        if d.body["data"]["status"] == "suspended" and d.body["data"]["server"] == server.id
    ]


def approve_again(personas):
    for ask in ConsentRequest.objects.filter(user=personas.alice, status="pending"):
        assert ask.origin == "registration_changed"
        allow_all(ask)


def test_a_new_url_stops_the_next_message_until_approved_again(personas, refserver):
    server = registered(personas, refserver)
    allow_all(open_request(personas, server, ["conversation:read"]))
    assert send(personas, "before")["skipped"] == []

    # The same reference server under another address (a query string the
    # server ignores): for consent, another registration.
    moved = f"{refserver.mcp_url}?tenant=2"
    assert personas.acme_api.patch(f"/servers/{server.id}", {"url": moved}).status_code == 200

    body = send(personas, "after-move")
    assert body["items"] == []
    assert body["skipped"] == [{"server": server.id, "reason": "no_consent", "detail": None}]
    assert list(received(refserver)) == ["before"]
    [told] = told_suspended(personas, server)
    assert (told["user"], told["scope"], told["previous_status"]) == (
        "alice",
        "conversation:read",
        "active",
    )

    approve_again(personas)
    body = send(personas, "approved-again")
    assert body["skipped"] == [] and [i["server"] for i in body["items"]] == [server.id]
    assert list(received(refserver)) == ["before", "approved-again"]


def test_renamed_credentials_stop_the_next_message_until_approved_again(personas, refserver):
    server = registered(personas, refserver, headers={"Authorization": "Bearer host"})
    allow_all(open_request(personas, server, ["conversation:read"]))
    send(personas, "before")
    # A new value under the same name is a rotation: nothing stops.
    personas.acme_api.patch(
        f"/servers/{server.id}", {"headers": {"Authorization": "Bearer host-2"}}
    )
    send(personas, "rotated")
    assert received(refserver) == {"before": "Bearer host", "rotated": "Bearer host-2"}

    renamed = personas.acme_api.patch(f"/servers/{server.id}", {"headers": {"X-Api-Key": "k"}})
    assert renamed.status_code == 200
    body = send(personas, "after-rename")
    assert body["skipped"] == [{"server": server.id, "reason": "no_consent", "detail": None}]
    assert "after-rename" not in received(refserver)
    assert len(told_suspended(personas, server)) == 1

    approve_again(personas)
    body = send(personas, "approved-again")
    # No Authorization header any more: the reference server sees nobody.
    # (The answer in the message: in one CI run on a loaded machine the
    # server never saw this message, and the run could not say why.)
    assert received(refserver).get("approved-again") == "anonymous", body


@pytest.mark.parametrize(
    ("host_headers", "then"),
    [({"Authorization": "Bearer host"}, "Bearer host"), (None, "anonymous")],
)
def test_after_disconnect_the_server_sees_the_hosts_account(
    personas, refserver, host_headers, then
):
    server = registered(personas, refserver, headers=host_headers)
    personas.acme_api.put(
        f"/users/alice/servers/{server.id}/credentials",
        {"headers": {"Authorization": "Bearer alice"}},
    )
    allow_all(open_request(personas, server, ["conversation:read"]))
    send(personas, "as-alice")

    alice = Client()
    alice.force_login(personas.alice)
    assert alice.post(f"/consent/servers/{server.id}/disconnect").status_code == 302

    body = send(personas, "after-disconnect")
    assert body["skipped"] == []  # consent stays; only the account changed
    assert received(refserver) == {"as-alice": "Bearer alice", "after-disconnect": then}
