"""Access requests: a user asks for a server the policy does not allow yet;
staff approve (the policy allows it, the user gets an ordinary consent
request) or deny with a note. Over the API and the console's pages, with the
ledger, the host's ``access_request.updated`` and who may do what."""

from __future__ import annotations

import pytest
from django.test import Client

from consent.models import AccessRequest, ConsentRequest, HostPolicy, RequestOrigin
from consent.services import host_policy_update
from outbox.models import HostDelivery
from switchboard.models import AuditEntry, McpServer
from switchboard.services.server_block import server_block
from tests.consent.support import declaring_server
from tests.factories import SYSTEM, make_server


@pytest.fixture
def notes(personas):
    """A server that offers reading messages, hooks and events, which the
    policy (allow only the listed servers, none listed) does not allow."""
    server = declaring_server(personas.acme)
    host_policy_update(host=personas.acme, actor=SYSTEM, server_list_mode="allow")
    return server


def ask(personas, server, reason="I track our builds with it", user="alice"):
    return personas.acme_api.post(
        "/access-requests", json={"user": user, "server": server.id, "reason": reason}
    )


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def deliveries(personas) -> list[dict]:
    rows = HostDelivery.objects.filter(host=personas.acme, type="access_request.updated")
    return [row.body["data"] for row in rows.order_by("seq")]


def test_a_user_asks_and_an_approval_allows_the_server_and_asks_for_consent(personas, notes):
    answer = ask(personas, notes)
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["status"] == "pending" and body["note"] is None
    assert body["consent_request_id"] is None
    assert (body["user"], body["server"], body["reason"]) == (
        "alice",
        notes.id,
        "I track our builds with it",
    )
    assert body["id"].startswith("acr_") and body["created_at"]

    listed = personas.acme_api.get("/access-requests?status=pending").json()
    assert [r["id"] for r in listed["items"]] == [body["id"]]
    assert personas.acme_api.get("/access-requests?status=denied").json()["items"] == []

    approved = personas.acme_api.post(f"/access-requests/{body['id']}/approve")
    assert approved.status_code == 200, approved.content
    out = approved.json()
    assert out["status"] == "approved" and out["consent_request_id"]
    assert HostPolicy.objects.get(host=personas.acme).listed_server_ids == [notes.id]
    consent_request = ConsentRequest.objects.get(pk=out["consent_request_id"])
    assert consent_request.user == personas.alice and consent_request.status == "pending"
    assert consent_request.origin == RequestOrigin.ACCESS_REQUEST
    assert sorted(consent_request.scopes) == ["conversation:read", "events", "hooks"]
    # Each change is in the ledger and delivered to the host.
    kinds = list(
        AuditEntry.objects.filter(subject_id=body["id"])
        .order_by("id")
        .values_list("kind", flat=True)
    )
    assert kinds == ["access_request.created", "access_request.approved"]
    assert deliveries(personas) == [
        {"request_id": body["id"], "user": "alice", "server": notes.id, "status": "pending"},
        {
            "request_id": body["id"],
            "user": "alice",
            "server": notes.id,
            "status": "approved",
            "consent_request_id": out["consent_request_id"],
        },
    ]
    # Once the policy allows it, asking again is refused.
    again = ask(personas, notes)
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_allowed"
    # Answering twice is refused.
    twice = personas.acme_api.post(f"/access-requests/{body['id']}/deny", json={"note": "no"})
    assert twice.status_code == 409 and twice.json()["error"]["code"] == "already_decided"


def test_approval_takes_the_server_off_the_deny_list_and_unblocks_it(personas):
    server = declaring_server(personas.acme)
    host_policy_update(
        host=personas.acme, actor=SYSTEM, server_list_mode="deny", listed_server_ids=[server.id]
    )
    assert McpServer.objects.get(pk=server.pk).blocked_at is not None  # the policy blocked it
    asked = ask(personas, server).json()
    assert personas.acme_api.post(f"/access-requests/{asked['id']}/approve").status_code == 200
    assert HostPolicy.objects.get(host=personas.acme).listed_server_ids == []
    assert McpServer.objects.get(pk=server.pk).blocked_at is None


def test_a_denial_carries_the_note_to_the_host(personas, notes):
    asked = ask(personas, notes).json()
    no_note = personas.acme_api.post(f"/access-requests/{asked['id']}/deny", json={"note": "  "})
    assert no_note.status_code == 422 and no_note.json()["error"]["field"] == "note"
    missing = personas.acme_api.post(f"/access-requests/{asked['id']}/deny", json={})
    assert missing.status_code == 422 and missing.json()["error"]["field"] == "note"
    denied = personas.acme_api.post(
        f"/access-requests/{asked['id']}/deny", json={"note": "Use the approved CI server"}
    )
    assert denied.status_code == 200
    assert denied.json()["status"] == "denied"
    assert denied.json()["note"] == "Use the approved CI server"
    assert deliveries(personas)[-1] == {
        "request_id": asked["id"],
        "user": "alice",
        "server": notes.id,
        "status": "denied",
        "note": "Use the approved CI server",
    }
    entry = AuditEntry.objects.get(subject_id=asked["id"], kind="access_request.denied")
    assert entry.detail["note"] == "Use the approved CI server"
    # The policy is unchanged; the user may ask again.
    assert HostPolicy.objects.get(host=personas.acme).listed_server_ids == []
    assert ask(personas, notes).status_code == 201


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"server": "?", "reason": "x"}, "user"),
        ({"user": "alice", "reason": "x"}, "server"),
        ({"user": "alice", "server": "?"}, "reason"),
        ({"user": "alice", "server": "?", "reason": "   "}, "reason"),
        ({"user": "alice", "server": "?", "reason": "x" * 1001}, "reason"),
        ({"user": "alice", "server": "?", "reason": 12}, "reason"),
    ],
)
def test_bad_input_is_refused_naming_the_field(personas, notes, body, field):
    if body.get("server") == "?":
        body = {**body, "server": notes.id}
    answer = personas.acme_api.post("/access-requests", json=body)
    assert answer.status_code == 422, answer.content
    assert answer.json()["error"]["field"] == field
    assert not AccessRequest.objects.exists()


def test_unknown_and_foreign_ids_are_not_found(personas, notes):
    assert ask(personas, notes, user="nobody").status_code == 404
    unknown = personas.acme_api.post(
        "/access-requests", json={"user": "alice", "server": "srv_nope", "reason": "x"}
    )
    assert unknown.status_code == 404 and unknown.json()["error"]["field"] == "server"
    asked = ask(personas, notes).json()
    # Another host sees nothing of it, and cannot answer it.
    assert personas.bravo_api.get(f"/access-requests/{asked['id']}").status_code == 404
    assert personas.bravo_api.post(f"/access-requests/{asked['id']}/approve").status_code == 404
    assert personas.bravo_api.get("/access-requests").json()["items"] == []
    # Nor may it ask for this host's server for its own user.
    foreign = personas.bravo_api.post(
        "/access-requests", json={"user": "charlie", "server": notes.id, "reason": "x"}
    )
    assert foreign.status_code == 404
    bad_status = personas.acme_api.get("/access-requests?status=maybe")
    assert bad_status.status_code == 422 and bad_status.json()["error"]["field"] == "status"


def test_asking_twice_while_waiting_is_one_request(personas, notes):
    assert ask(personas, notes).status_code == 201
    again = ask(personas, notes, reason="please")
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_requested"
    assert AccessRequest.objects.count() == 1
    # Another user asks on their own.
    assert ask(personas, notes, user="bob").status_code == 201


def test_a_server_the_policy_allows_needs_no_request(personas):
    server = declaring_server(personas.acme)  # the policy is off: every server is allowed
    answer = ask(personas, server)
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "already_allowed"


def test_a_server_stopped_by_the_kill_switch_is_not_approved(personas, notes):
    asked = ask(personas, notes).json()
    server_block(server=notes, actor=SYSTEM)
    answer = personas.acme_api.post(f"/access-requests/{asked['id']}/approve")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "server_blocked"
    assert AccessRequest.objects.get(pk=asked["id"]).status == "pending"
    assert HostPolicy.objects.get(host=personas.acme).listed_server_ids == []


def test_a_server_that_offers_nothing_is_allowed_without_a_consent_request(personas):
    bare = make_server(personas.acme, "Bare")
    host_policy_update(host=personas.acme, actor=SYSTEM, server_list_mode="allow")
    asked = ask(personas, bare).json()
    out = personas.acme_api.post(f"/access-requests/{asked['id']}/approve").json()
    assert out["status"] == "approved" and out["consent_request_id"] is None
    assert not ConsentRequest.objects.exists()


# --- the pages ---------------------------------------------------------------


def test_the_user_asks_on_their_page_with_a_reason(personas, notes):
    client = signed_in(personas.alice)
    servers = client.get("/consent/servers/").content.decode()
    assert "Ask for another server" in servers
    assert f'href="/consent/access/{notes.id}/"' in servers and "Request access" in servers

    form = client.get(f"/consent/access/{notes.id}/")
    assert form.status_code == 200 and "Why do you need it?" in form.content.decode()
    empty = client.post(f"/consent/access/{notes.id}/", {"reason": "   "})
    assert empty.status_code == 422
    assert "Say why you need this server" in empty.content.decode()
    too_long = client.post(f"/consent/access/{notes.id}/", {"reason": "x" * 1001})
    assert too_long.status_code == 422 and "At most 1,000 characters" in too_long.content.decode()
    assert not AccessRequest.objects.exists()

    sent = client.post(f"/consent/access/{notes.id}/", {"reason": "For the release notes"})
    assert sent.status_code == 302 and sent["Location"] == "/consent/servers/"
    request = AccessRequest.objects.get()
    assert (request.user, request.server, request.reason) == (
        personas.alice,
        notes,
        "For the release notes",
    )
    entry = AuditEntry.objects.get(kind="access_request.created")
    assert entry.actor_kind == "user" and entry.actor_id == personas.alice.id
    page = client.get("/consent/servers/").content.decode()
    assert f'id="access-request-{request.id}"' in page and "Waiting for staff" in page
    twice = client.post(f"/consent/access/{notes.id}/", {"reason": "again"})
    assert twice.status_code == 409 and "already waiting for staff" in twice.content.decode()


def test_users_see_only_their_own_requests_and_their_own_hosts_servers(personas, notes):
    ask(personas, notes, reason="alice's secret reason")
    bob_page = signed_in(personas.bob).get("/consent/servers/").content.decode()
    assert "alice's secret reason" not in bob_page and "Waiting for staff" not in bob_page
    # Charlie (another host) cannot open the form for Acme's server.
    assert signed_in(personas.charlie).get(f"/consent/access/{notes.id}/").status_code == 404
    assert (
        signed_in(personas.charlie)
        .post(f"/consent/access/{notes.id}/", {"reason": "x"})
        .status_code
        == 404
    )
    # End users have no staff queue.
    assert signed_in(personas.alice).get("/staff/access-requests/").status_code == 403
    asked = AccessRequest.objects.get()
    assert (
        signed_in(personas.alice).post(f"/staff/access-requests/{asked.id}/approve").status_code
        == 403
    )


def test_admins_answer_in_the_queue_and_auditors_only_read(personas, notes):
    asked = ask(personas, notes, reason="Builds <b>matter</b>").json()
    auditor = signed_in(personas.auditor)
    queue = auditor.get("/staff/access-requests/")
    html = queue.content.decode()
    assert queue.status_code == 200 and "Builds &lt;b&gt;matter&lt;/b&gt;" in html
    assert "Only admins answer them" in html and ">Approve</button>" not in html
    assert auditor.post(f"/staff/access-requests/{asked['id']}/approve").status_code == 403
    assert (
        auditor.post(f"/staff/access-requests/{asked['id']}/deny", {"note": "no"}).status_code
        == 403
    )
    assert AccessRequest.objects.get(pk=asked["id"]).status == "pending"

    admin = signed_in(personas.admin)
    page = admin.get("/staff/access-requests/").content.decode()
    assert ">Approve</button>" in page and f'id="access-row-{asked["id"]}"' in page
    no_note = admin.post(f"/staff/access-requests/{asked['id']}/deny", {"note": ""})
    assert no_note.status_code == 422
    assert "Say why the request is denied" in no_note.content.decode()
    approved = admin.post(f"/staff/access-requests/{asked['id']}/approve")
    assert approved.status_code == 302
    row = AccessRequest.objects.get(pk=asked["id"])
    assert row.status == "approved" and row.decided_by == "admin@acme.test"
    entry = AuditEntry.objects.get(kind="access_request.approved")
    assert entry.actor_kind == "staff" and entry.actor_id == personas.admin.id
    # The pending queue is empty now; the approved filter shows it.
    assert "No request is waiting" in admin.get("/staff/access-requests/").content.decode()
    assert (
        f'id="access-row-{asked["id"]}"'
        in admin.get("/staff/access-requests/?status=approved").content.decode()
    )
    # The user's page links to the consent request staff's approval opened.
    mine = signed_in(personas.alice).get("/consent/servers/").content.decode()
    assert f'href="/consent/{row.consent_request_id}/"' in mine and "Approved" in mine


def test_another_hosts_staff_cannot_answer(personas, notes):
    from switchboard.services.users import staff_create

    other = staff_create(host=personas.bravo, email="admin@bravo.test", role="admin", actor=SYSTEM)
    asked = ask(personas, notes).json()
    client = signed_in(other)
    assert client.post(f"/staff/access-requests/{asked['id']}/approve").status_code == 404
    assert asked["id"] not in client.get("/staff/access-requests/?status=").content.decode()
