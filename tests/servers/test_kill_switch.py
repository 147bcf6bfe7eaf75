"""The kill switch (switchboard/README.md; the host API: ``POST /servers/{id}/block`` ·
``/unblock``): one call stops a server for the whole host. Against our own
services and database; the reference-server test beside it
(``test_kill_switch_live.py``) shows the server itself sees the end."""

from __future__ import annotations

import pytest

from consent.models import Grant, GrantStatus
from subscriptions.models import Subscription, SubscriptionStatus
from switchboard.models import AuditEntry
from tests.hooks.conftest import COMMIT_HOOK, approve, hooked_server
from tests.subscriptions.support import approve_events, make_event_server, make_subscription

pytestmark = pytest.mark.django_db


@pytest.fixture
def server(personas):
    """A server alice and bob both allowed something, with subscriptions."""
    server = make_event_server(personas.acme)
    for user in (personas.alice, personas.bob):
        approve_events(user, server, ["build.finished"])
        make_subscription(user, server, status=SubscriptionStatus.ACTIVE, remote_id=f"r-{user.id}")
    make_subscription(
        personas.alice,
        server,
        event="ticket.created",
        arguments={},
        status=SubscriptionStatus.PENDING_CONSENT,
    )
    return server


def test_blocking_suspends_every_grant_and_revokes_every_subscription(personas, server):
    answer = personas.acme_api.post(f"/servers/{server.id}/block")
    assert answer.status_code == 200, answer.content
    assert answer.json() == {"blocked": True, "grants_suspended": 2, "subscriptions_revoked": 3}
    assert set(Grant.objects.filter(server=server).values_list("status", flat=True)) == {
        GrantStatus.SUSPENDED
    }
    assert set(Subscription.objects.filter(server=server).values_list("status", flat=True)) == {
        SubscriptionStatus.REVOKED
    }
    # The two that ran on the server are owed an events/unsubscribe there.
    owed = Subscription.objects.filter(server=server, unsubscribe_state="pending")
    assert owed.count() == 2
    entry = AuditEntry.objects.get(kind="server.blocked", server_id=server.id)
    assert entry.detail["grants_suspended"] == 2 and entry.detail["subscriptions_revoked"] == 3
    assert personas.acme_api.get(f"/servers/{server.id}").json()["blocked_at"]


def test_a_blocked_server_gets_no_new_consent_or_subscription(personas, server):
    personas.acme_api.post(f"/servers/{server.id}/block")
    asked = personas.acme_api.post(
        "/consent/requests",
        {
            "user": "bob",
            "server": server.id,
            "scopes": ["events"],
            "event_types": ["build.finished"],
        },
    )
    assert asked.status_code == 409 and asked.json()["error"]["code"] == "server_blocked"
    made = personas.acme_api.post(
        "/subscriptions",
        {"user": "alice", "server": server.id, "event": "build.finished", "arguments": {}},
    )
    assert made.status_code == 409 and made.json()["error"]["code"] == "server_blocked"
    synced = personas.acme_api.post(f"/servers/{server.id}/sync")
    assert synced.status_code == 409


def test_suspended_grants_cannot_be_approved_while_blocked_and_no_one_is_asked(personas, server):
    from consent.models import ConsentRequest
    from consent.services import grant_approve
    from switchboard.actors import Actor
    from switchboard.errors import Conflict

    personas.acme_api.post(f"/servers/{server.id}/block")
    # A suspension for changed declarations asks the user again; this one does not.
    assert not ConsentRequest.objects.filter(server=server).exists()
    grant = Grant.objects.get(server=server, user=personas.alice)
    with pytest.raises(Conflict, match="blocked"):
        grant_approve(grant=grant, actor=Actor.for_user(personas.alice))


def test_unblocking_restores_nothing_by_itself(personas, server):
    personas.acme_api.post(f"/servers/{server.id}/block")
    answer = personas.acme_api.post(f"/servers/{server.id}/unblock")
    assert answer.json() == {"blocked": False, "grants_suspended": 0, "subscriptions_revoked": 0}
    assert not Grant.objects.filter(server=server, status=GrantStatus.ACTIVE).exists()
    assert not Subscription.objects.filter(server=server, status="active").exists()
    assert AuditEntry.objects.filter(kind="server.unblocked", server_id=server.id).exists()
    # Users can be asked again, and what they allow then works.
    again = personas.acme_api.post(
        "/consent/requests",
        {
            "user": "alice",
            "server": server.id,
            "scopes": ["events"],
            "event_types": ["build.finished"],
        },
    )
    assert again.status_code in (200, 201), again.content


def test_another_hosts_server_cannot_be_blocked(personas, server):
    assert personas.bravo_api.post(f"/servers/{server.id}/block").status_code == 404
    assert personas.bravo_api.post(f"/servers/{server.id}/unblock").status_code == 404


def test_a_blocked_servers_hooks_stay_silent(personas):
    hooky = hooked_server(personas.acme, [COMMIT_HOOK])
    approve(personas.alice, hooky, COMMIT_HOOK)

    def commit(session):
        return personas.acme_api.post(
            f"/sessions/{session}/lifecycle",
            {
                "user": "alice",
                "event": "post_tool_use",
                "servers": [hooky.id],
                "tool_name": "Bash",
                "tool_input": {"command": "git commit -m 'x'"},
            },
        ).json()

    assert len(commit("before")["injections"]) == 1
    personas.acme_api.post(f"/servers/{hooky.id}/block")
    assert commit("after")["injections"] == []


def _signed_in(user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


def test_staff_block_from_the_page_after_confirming_and_users_see_it(personas, server):
    admin = _signed_in(personas.admin)
    detail = admin.get(f"/staff/servers/{server.id}/").content.decode()
    assert f"Block {server.name}…" in detail
    question = admin.get(f"/staff/servers/{server.id}/block").content.decode()
    assert "every consent a user gave" in question and "unsubscribed on the server" in question
    admin.post(f"/staff/servers/{server.id}/block")  # no confirmation: nothing happens
    server.refresh_from_db()
    assert server.blocked_at is None
    done = admin.post(f"/staff/servers/{server.id}/block", {"confirm": "block"}, follow=True)
    html = done.content.decode()
    assert "2 consent(s) suspended, 3 subscription(s) revoked" in html
    assert 'id="blocked-notice"' in html and f"Unblock {server.name}…" in html
    server.refresh_from_db()
    assert server.blocked_by == personas.admin.label

    cards = _signed_in(personas.alice).get("/consent/servers/").content.decode()
    assert 'data-blocked="yes"' in cards and "Blocked by your organisation" in cards

    admin.post(f"/staff/servers/{server.id}/block", {"confirm": "unblock"})
    server.refresh_from_db()
    assert server.blocked_at is None


def test_auditors_cannot_block(personas, server):
    auditor = _signed_in(personas.auditor)
    assert "Block " not in auditor.get(f"/staff/servers/{server.id}/").content.decode()
    assert (
        auditor.post(f"/staff/servers/{server.id}/block", {"confirm": "block"}).status_code == 403
    )
    server.refresh_from_db()
    assert server.blocked_at is None


def test_a_blocked_server_holds_no_listen_session_and_is_not_synced(personas):
    from switchboard.services.server_listen import server_wants_listen
    from switchboard.services.server_sync import servers_due_for_sync

    server = make_event_server(personas.acme)
    server.events_dialect_override = "sep-3415"
    server.capabilities = {"events": {"listChanged": True}}
    server.next_sync_at = server.created_at
    server.save()
    assert server_wants_listen(server.id) and server in servers_due_for_sync()
    personas.acme_api.post(f"/servers/{server.id}/block")
    assert not server_wants_listen(server.id) and server not in servers_due_for_sync()


# --- the organisation policy, enforced through the same switch ----------------------


def test_the_policy_is_read_and_changed_over_the_api(personas):
    policy = personas.acme_api.get("/policy").json()
    assert policy["server_list_mode"] == "off" and policy["listed_server_ids"] == []
    changed = personas.acme_api.put("/policy", {"conversation_budget_ms": 400})
    assert changed.status_code == 200 and changed.json()["conversation_budget_ms"] == 400
    assert changed.json()["server_list_mode"] == "off"  # left out: kept
    bad = personas.acme_api.put("/policy", {"conversation_budget_ms": 5})
    assert bad.status_code == 422 and "conversation_budget_ms" in bad.content.decode()
    unknown = personas.acme_api.put(
        "/policy", {"server_list_mode": "deny", "listed_server_ids": ["srv_nope"]}
    )
    assert unknown.status_code == 422 and unknown.json()["error"]["field"] == "listed_server_ids"
    assert personas.bravo_api.get("/policy").json()["conversation_budget_ms"] != 400


def test_a_server_the_policy_now_denies_is_stopped_like_the_kill_switch(personas, server):
    answer = personas.acme_api.put(
        "/policy", {"server_list_mode": "deny", "listed_server_ids": [server.id]}
    )
    assert answer.status_code == 200, answer.content
    server.refresh_from_db()
    assert server.blocked_at and server.blocked_reason == "policy"
    assert not Grant.objects.filter(server=server, status=GrantStatus.ACTIVE).exists()
    assert not Subscription.objects.filter(server=server, status="active").exists()
    change = AuditEntry.objects.get(kind="policy.updated")
    assert change.detail["servers_blocked"][server.id]["grants_suspended"] == 2
    # Staff cannot lift what the policy holds; the policy can.
    refused = personas.acme_api.post(f"/servers/{server.id}/unblock")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "blocked_by_policy"
    personas.acme_api.put("/policy", {"server_list_mode": "off"})
    server.refresh_from_db()
    assert server.blocked_at is None
    assert not Grant.objects.filter(server=server, status=GrantStatus.ACTIVE).exists()


def test_allowing_a_server_again_leaves_a_kill_switch_in_place(personas, server):
    personas.acme_api.post(f"/servers/{server.id}/block")
    personas.acme_api.put("/policy", {"server_list_mode": "deny", "listed_server_ids": [server.id]})
    personas.acme_api.put("/policy", {"server_list_mode": "off"})
    server.refresh_from_db()
    assert server.blocked_at and server.blocked_reason == "staff"


def test_a_server_outside_an_allow_list_gets_no_subscription(personas, server):
    other = make_event_server(personas.acme, name="Other")
    personas.acme_api.put("/policy", {"server_list_mode": "allow", "listed_server_ids": [other.id]})
    made = personas.acme_api.post(
        "/subscriptions",
        {"user": "alice", "server": server.id, "event": "build.finished", "arguments": {}},
    )
    assert made.status_code == 403 and made.json()["error"]["code"] == "server_not_allowed"
    new = make_event_server(personas.acme, name="New")  # registered after the list was set
    refused = personas.acme_api.post(
        "/subscriptions",
        {"user": "alice", "server": new.id, "event": "build.finished", "arguments": {}},
    )
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "server_not_allowed"
