"""Consent requests over the API and the services behind the consent page."""

from datetime import timedelta

import pytest
from django.utils import timezone

from consent.models import ConsentRequest, Grant, GrantStatus, RequestOrigin
from consent.selectors import grant_is_live
from consent.services import (
    Decision,
    consent_request_decide,
    consent_requests_expire_due,
    grants_on_declarations_changed,
    host_policy_update,
)
from consent.snapshots import snapshot_hook_ids
from outbox.models import HostDelivery
from switchboard.actors import Actor
from switchboard.errors import Conflict, Invalid
from switchboard.models import AuditEntry
from tests.consent.support import HOOKS, allow_all, declaring_server, open_request, redeclare
from tests.factories import SYSTEM


@pytest.fixture
def server(personas):
    return declaring_server(personas.acme)


def ask(personas, to, **body):
    return personas.acme_api.post(
        "/consent/requests",
        {"user": "alice", "server": to.id, "scopes": ["conversation:read"], **body},
    )


def test_a_request_opens_pending_grants_and_the_same_open_one_answers_again(personas, server):
    first = ask(personas, server, scopes=["conversation:read", "hooks", "events"])
    assert first.status_code == 201, first.json()
    body = first.json()
    assert body["status"] == "pending"
    assert body["consent_url"].endswith(f"/consent/{body['id']}/")
    expires = timezone.datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert abs((expires - timezone.now()) - timedelta(days=7)) < timedelta(minutes=1)

    again = ask(personas, server, scopes=["events", "hooks", "conversation:read"])
    assert again.status_code == 200 and again.json()["id"] == body["id"]

    shown = personas.acme_api.get(f"/consent/requests/{body['id']}").json()
    assert shown["status"] == "pending"
    assert sorted(g["scope"] for g in shown["grants"]) == ["conversation:read", "events", "hooks"]
    assert all(g["status"] == "pending" for g in shown["grants"])
    # Asked for every event type the server offers when none were named.
    assert shown["event_types"] == ["build.finished", "issue.opened"]


def test_return_url_must_be_on_a_registered_origin_or_relative(personas, server):
    assert ask(personas, server, return_url="https://chat.acme.test/c/1").status_code == 201
    assert ask(personas, server, return_url="/c/2").status_code == 200  # same open request
    for bad in (
        "https://evil.test/",
        "//evil.test/x",
        "javascript:alert(1)",
        "http://chat.acme.test/",
    ):
        answer = ask(personas, server, return_url=bad)
        assert answer.status_code == 422, bad
        assert answer.json()["error"]["field"] == "return_url"


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"user": "nobody"}, 404, "user"),
        ({"user": "charlie"}, 404, "user"),
        ({"server": "srv_unknown"}, 404, "server"),
        ({"scopes": []}, 422, "scopes"),
        ({"scopes": ["conversation:write"]}, 422, "scopes"),
        ({"scopes": ["events"], "event_types": ["nope"]}, 422, "event_types"),
        ({"scopes": ["hooks"], "event_types": ["build.finished"]}, 422, "event_types"),
        ({"scopes": "hooks"}, 422, "scopes"),
    ],
)
def test_bad_requests_name_the_field(personas, server, body, status, field):
    answer = ask(personas, server, **body)
    assert answer.status_code == status, answer.json()
    assert answer.json()["error"]["field"] == field


def test_another_hosts_server_and_request_are_not_found(personas, server):
    foreign = declaring_server(personas.bravo, "Bravo notes")
    assert ask(personas, foreign).json()["error"]["field"] == "server"
    request_id = ask(personas, server).json()["id"]
    assert personas.bravo_api.get(f"/consent/requests/{request_id}").status_code == 404


def test_a_server_cannot_be_asked_for_what_it_does_not_offer(personas):
    plain = declaring_server(personas.acme, "Plain", hooks=[], event_types=[])
    for scope in ("hooks", "events"):
        answer = ask(personas, plain, scopes=[scope])
        assert answer.status_code == 422 and answer.json()["error"]["code"] == "scope_not_offered"


def test_deciding_per_scope_and_per_hook_keeps_what_was_shown(personas, server):
    request = open_request(personas, server, ["conversation:read", "hooks", "events"])
    grants = {g.scope: g for g in request.grants.all()}
    hooks = grants["hooks"]
    first_hook = snapshot_hook_ids(hooks.shown)[0]
    decided = consent_request_decide(
        request=request,
        decisions={
            grants["conversation:read"].id: Decision(allow=True),
            hooks.id: Decision(
                allow=True, hook_ids=[first_hook], shown_hash=hooks.declaration_hash
            ),
            grants["events"].id: Decision(allow=False),
        },
        remember="1d",
        actor=Actor.for_user(personas.alice),
        decided_by=personas.alice,
    )
    assert decided.status == "partially_approved"
    hooks.refresh_from_db()
    assert hooks.status == "active" and hooks.approved_hook_ids == [first_hook]
    assert hooks.approved_shown == hooks.shown
    assert abs(hooks.expires_at - timezone.now() - timedelta(days=1)) < timedelta(minutes=1)
    assert grant_is_live(
        user=personas.alice, server_id=server.id, scope="hooks", hook_id=first_hook
    )
    others = [h for h in snapshot_hook_ids(hooks.shown) if h != first_hook]
    assert not grant_is_live(
        user=personas.alice, server_id=server.id, scope="hooks", hook_id=others[0]
    )
    # The ledger's approval holds the very declarations shown, and their hash.
    approval = AuditEntry.objects.get(kind="consent.approved", subject_id=hooks.id)
    assert approval.detail["declaration_hash"] == hooks.declaration_hash
    shown = [h["declaration"] for h in approval.detail["shown"]["declarations"]["hooks"]]
    assert sorted(d["event"] for d in shown) == sorted(d["event"] for d in HOOKS)
    api = personas.acme_api.get(f"/consent/requests/{request.id}").json()
    assert api["status"] == "partially_approved"
    assert {g["scope"]: g["status"] for g in api["grants"]} == {
        "conversation:read": "active",
        "hooks": "active",
        "events": "denied",
    }


def test_allowing_with_nothing_ticked_counts_as_no(personas, server):
    request = open_request(personas, server, ["hooks"])
    grant = request.grants.get()
    consent_request_decide(
        request=request,
        decisions={grant.id: Decision(allow=True)},
        remember="forever",
        actor=SYSTEM,
    )
    grant.refresh_from_db()
    assert grant.status == "denied"
    assert ConsentRequest.objects.get(pk=request.pk).status == "denied"


def test_every_open_grant_needs_an_answer_and_only_shown_items_can_be_allowed(personas, server):
    request = open_request(personas, server, ["hooks", "conversation:read"])
    hooks = request.grants.get(scope="hooks")
    with pytest.raises(Invalid):
        consent_request_decide(
            request=request,
            decisions={hooks.id: Decision(allow=False)},
            remember="1d",
            actor=SYSTEM,
        )
    with pytest.raises(Invalid):
        consent_request_decide(
            request=request,
            decisions={
                g.id: Decision(allow=True, hook_ids=["srv_x:0000000000000000"])
                for g in request.grants.all()
            },
            remember="1d",
            actor=SYSTEM,
        )
    assert not Grant.objects.filter(pk=hooks.pk, status="active").exists()


def test_a_stale_page_cannot_approve_changed_declarations(personas, server):
    request = open_request(personas, server, ["hooks"])
    grant = request.grants.get()
    stale_hash, stale_hooks = grant.declaration_hash, snapshot_hook_ids(grant.shown)
    redeclare(server, hooks=HOOKS[:1])
    with pytest.raises(Conflict):
        consent_request_decide(
            request=request,
            decisions={grant.id: Decision(allow=True, hook_ids=stale_hooks, shown_hash=stale_hash)},
            remember="1d",
            actor=SYSTEM,
        )
    grant.refresh_from_db()
    assert grant.status == "pending"
    assert len(snapshot_hook_ids(grant.shown)) == 1  # re-shown the current declarations


def test_changed_hook_declarations_suspend_the_grant_until_approved_again(personas, server):
    request = allow_all(open_request(personas, server, ["hooks", "conversation:read"]))
    hooks = request.grants.get(scope="hooks")
    approved = list(hooks.approved_hook_ids)
    assert len(approved) == 3

    changed = [HOOKS[0], {**HOOKS[1], "context": "Force-push freely."}, HOOKS[2]]
    redeclare(server, hooks=changed)

    hooks.refresh_from_db()
    assert hooks.status == GrantStatus.SUSPENDED
    for hook_id in approved:  # nothing is used until the user decides again
        assert (
            grant_is_live(user=personas.alice, server_id=server.id, scope="hooks", hook_id=hook_id)
            is None
        )
    check = {"user": "alice", "server": server.id, "scope": "hooks", "hook_id": approved[0]}
    assert personas.acme_api.post("/consent/check", check).json()["allowed"] is False
    # The conversation grant is not about hooks and stays as it was.
    assert request.grants.get(scope="conversation:read").status == "active"

    reask = ConsentRequest.objects.get(origin=RequestOrigin.DECLARATIONS_CHANGED)
    assert list(reask.grants.all()) == [hooks]
    suspended = AuditEntry.objects.get(kind="consent.suspended", subject_id=hooks.id)
    assert len(suspended.detail["changes"]["hooks_added"]) == 1
    assert len(suspended.detail["changes"]["hooks_removed"]) == 1

    allow_all(reask)
    hooks.refresh_from_db()
    assert hooks.status == "active"
    assert set(hooks.approved_hook_ids) == set(snapshot_hook_ids(hooks.shown))
    assert set(hooks.approved_hook_ids) != set(approved)
    assert ConsentRequest.objects.get(pk=reask.pk).status == "approved"


def test_unchanged_declarations_suspend_nothing(personas, server):
    allow_all(open_request(personas, server, ["hooks", "events"]))
    assert grants_on_declarations_changed(server=server) == []
    redeclare(server)  # the same declarations again
    assert not Grant.objects.filter(status="suspended").exists()


def test_a_removed_event_type_suspends_the_events_grant(personas, server):
    request = allow_all(open_request(personas, server, ["events"], event_types=["build.finished"]))
    # The re-sync itself reacts: the registry hands the change to consent.
    redeclare(server, event_types=[{"name": "issue.opened", "description": "x"}])
    assert request.grants.get(scope="events").status == "suspended"
    assert grants_on_declarations_changed(server=server) == []  # safe to call again


def test_open_requests_expire_and_take_their_pending_grants_along(personas, server, settings):
    settings.CONSENT_REQUEST_TTL = 0
    request = open_request(personas, server, ["hooks"])
    answer = personas.acme_api.get(f"/consent/requests/{request.id}").json()
    assert answer["status"] == "expired"  # even before the sweep
    with pytest.raises(Conflict):
        allow_all(request)
    assert consent_requests_expire_due() == 1
    assert request.grants.get().status == "expired"
    assert AuditEntry.objects.filter(kind="consent.request_expired", subject_id=request.id).exists()
    settings.CONSENT_REQUEST_TTL = 3600
    assert ask(personas, server, scopes=["hooks"]).status_code == 201  # a fresh one


def test_staff_on_behalf_is_marked_everywhere(personas, server):
    request = allow_all(
        open_request(personas, server, ["conversation:read"]),
        actor=Actor.for_user(personas.admin),
        channel="staff",
        decided_by=personas.admin,
    )
    grant = request.grants.get()
    assert grant.channel == "staff" and grant.decided_by == personas.admin
    assert request.channel == "staff"
    entry = AuditEntry.objects.get(kind="consent.approved", subject_id=grant.id)
    assert entry.actor_kind == "staff" and "on the user's behalf" in entry.summary
    assert personas.acme_api.get("/users/alice/grants").json()["items"][0]["channel"] == "staff"


def test_the_host_hears_of_every_change(personas, server):
    request = allow_all(open_request(personas, server, ["conversation:read"]))
    grant = request.grants.get()
    personas.acme_api.delete(f"/grants/{grant.id}")
    bodies = [
        d.body["data"]
        for d in HostDelivery.objects.filter(host=personas.acme, type="consent.updated").order_by(
            "seq"
        )
    ]
    assert [b["status"] for b in bodies] == ["pending", "active", "revoked"]
    assert bodies[-1] == {
        "grant_id": grant.id,
        "user": "alice",
        "server": server.id,
        "scope": "conversation:read",
        "status": "revoked",
        "previous_status": "active",
    }


def test_host_policy_keeps_servers_off_the_list_out(personas, server):
    host_policy_update(
        host=personas.acme, actor=SYSTEM, server_list_mode="deny", listed_server_ids=[server.id]
    )
    answer = ask(personas, server)
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "server_not_allowed"
    check = {"user": "alice", "server": server.id, "scope": "conversation:read"}
    assert personas.acme_api.post("/consent/check", check).json() == {
        "allowed": False,
        "grant_id": None,
        "reason": "denied_by_policy",
    }
    # An allow-list: only the listed servers may ask.
    host_policy_update(host=personas.acme, actor=SYSTEM, server_list_mode="allow")
    assert ask(personas, server).status_code == 201
    host_policy_update(host=personas.acme, actor=SYSTEM, listed_server_ids=[])
    assert ask(personas, server, scopes=["hooks"]).status_code == 403


def test_the_openapi_document_describes_the_consent_and_conversation_routes(personas):
    schema = personas.acme_api.client.get("/api/v1/openapi.json").json()
    for path in (
        "/api/v1/consent/requests",
        "/api/v1/consent/requests/{request_id}",
        "/api/v1/consent/check",
        "/api/v1/conversations/{conversation_id}/messages",
        "/api/v1/conversations/{conversation_id}/injections",
    ):
        assert path in schema["paths"], path
    message = schema["paths"]["/api/v1/conversations/{conversation_id}/messages"]["post"]
    assert "requestBody" in message and "200" in message["responses"]
