"""Organisation grants and users' groups: the API, membership read at every
call, what a member may turn off, the ledger and the host's deliveries, the
policy and the kill switch, hooks and events, the staff page."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import quote

import pytest
from django.test import Client
from django.utils import timezone

from consent.enforce import NO_CONSENT, SERVER_BLOCKED, outbound_check
from consent.models import Grant, GrantStatus, OrgGrant, OrgGrantStatus
from consent.plan_sql import candidate_servers
from consent.selectors import grant_is_live
from consent.services import host_policy_update
from outbox.models import HostDelivery
from subscriptions.models import SubscriptionStatus
from switchboard.models import AuditEntry, UserGroup
from switchboard.services.server_block import server_block, server_unblock
from tests.consent.support import declaring_server
from tests.factories import SYSTEM, make_user
from tests.hooks.conftest import COMMIT_HOOK, hook_id_of, hooked_server
from tests.subscriptions.support import make_event_server, make_subscription

READ = "conversation:read"


@pytest.fixture
def server(personas):
    return declaring_server(personas.acme)


def in_groups(personas, external_id, groups):
    answer = personas.acme_api.put(f"/users/{external_id}", {"groups": groups})
    assert answer.status_code in (200, 201), answer.json()
    return answer.json()


def allow(personas, server, *, groups=("eng",), scopes=(READ,), **extra):
    body = {
        "server": server.id,
        "scopes": list(scopes),
        "groups": list(groups),
        "user_can_revoke": True,
        **extra,
    }
    answer = personas.acme_api.post("/org-grants", body)
    assert answer.status_code == 201, answer.json()
    return answer.json()


def check(personas, server, user="alice", scope=READ, **extra):
    body = {"user": user, "server": server.id, "scope": scope, **extra}
    return personas.acme_api.post("/consent/check", body).json()


def deliveries(personas, user="alice"):
    rows = HostDelivery.objects.filter(host=personas.acme, type="consent.updated").order_by("seq")
    return [d.body["data"] for d in rows if d.body["data"]["user"] == user]


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- groups on the users API ---------------------------------------------------


def test_groups_are_set_returned_and_kept_on_the_users_api(personas):
    api = personas.acme_api
    body = in_groups(personas, "alice", ["ops", "eng", "ops"])
    assert body["groups"] == ["eng", "ops"]
    assert api.get("/users/alice").json()["groups"] == ["eng", "ops"]
    # Left out: unchanged; given: replaced.
    assert api.put("/users/alice", {"display_name": "Alice A."}).json()["groups"] == ["eng", "ops"]
    assert in_groups(personas, "alice", ["eng"])["groups"] == ["eng"]
    created = api.put("/users/dora", {"groups": ["eng"]})
    assert created.status_code == 201 and created.json()["groups"] == ["eng"]
    entry = AuditEntry.objects.filter(kind="user.updated", user_id=personas.alice.id).latest("id")
    assert entry.detail == {"groups_added": [], "groups_removed": ["ops"]}


@pytest.mark.parametrize(
    "groups",
    [[""], ["x" * 101], [f"g{i}" for i in range(51)], ["*"], [" eng"], [5], "eng"],
)
def test_bad_groups_are_refused_naming_the_field(personas, groups):
    answer = personas.acme_api.put("/users/alice", {"groups": groups})
    assert answer.status_code == 422, answer.json()
    assert answer.json()["error"]["field"].startswith("groups")
    assert personas.acme_api.get("/users/alice").json()["groups"] == []


# --- giving ----------------------------------------------------------------------


def test_a_group_grant_allows_each_member_with_a_grant_of_their_own(personas, server):
    in_groups(personas, "alice", ["eng"])
    in_groups(personas, "bob", ["sales"])
    org = allow(personas, server, scopes=[READ, "hooks"])
    assert org["status"] == "active" and org["groups"] == ["eng"]
    assert org["scopes"] == ["conversation:read", "hooks"] and org["user_can_revoke"] is True
    assert org["created_by"].startswith("API key") and org["expires_at"] is None
    assert org["hook_ids"] == sorted(h.hook_id for h in server.hook_declarations.all())
    assert personas.acme_api.get(f"/org-grants/{org['id']}").json() == org
    assert [o["id"] for o in personas.acme_api.get("/org-grants").json()["items"]] == [org["id"]]

    items = personas.acme_api.get("/users/alice/grants").json()["items"]
    assert {(g["scope"], g["status"], g["source"], g["org_grant_id"]) for g in items} == {
        (READ, "active", "organisation", org["id"]),
        ("hooks", "active", "organisation", org["id"]),
    }
    assert all(g["channel"] == "organisation" for g in items)
    assert personas.acme_api.get("/users/bob/grants").json()["items"] == []

    allowed = check(personas, server)
    assert allowed["allowed"] is True and allowed["source"] == "organisation"
    assert check(personas, server, user="bob")["allowed"] is False

    # The host hears of each member's grant as of their own, and the ledger has it.
    told = deliveries(personas)
    assert sorted(d["scope"] for d in told) == ["conversation:read", "hooks"]
    assert all(d["status"] == "active" and d["source"] == "organisation" for d in told)
    assert all(d["org_grant_id"] == org["id"] for d in told)
    assert deliveries(personas, "bob") == []
    assert AuditEntry.objects.filter(kind="org_grant.created", subject_id=org["id"]).exists()
    approved = AuditEntry.objects.filter(kind="consent.approved", user_id=personas.alice.id)
    assert approved.count() == 2
    assert all(e.detail["org_grant_id"] == org["id"] for e in approved)


def test_consent_as_of_a_moment_keeps_the_organisation_as_the_source(personas, server):
    """``?at=`` replays the ledger: a grant the organisation gave reads as the
    organisation's then, as it does now."""
    in_groups(personas, "alice", ["eng"])
    org = allow(personas, server)
    [now] = personas.acme_api.get("/users/alice/grants").json()["items"]
    at = quote(timezone.now().isoformat())
    [then] = personas.acme_api.get(f"/users/alice/grants?at={at}").json()["items"]
    assert (then["id"], then["source"], then["org_grant_id"], then["channel"]) == (
        now["id"],
        "organisation",
        org["id"],
        "organisation",
    )


def test_everyone_includes_users_created_later(personas, server):
    org = allow(personas, server, groups=["*"])
    assert check(personas, server, user="bob")["source"] == "organisation"
    personas.acme_api.put("/users/erin", {})
    grant = Grant.objects.get(user__external_id="erin", server=server)
    assert grant.org_grant_id == org["id"] and grant.status == GrantStatus.ACTIVE


def test_a_users_own_grant_stands_beside_the_organisations(personas, server):
    from tests.consent.support import allow_all, open_request

    own = allow_all(open_request(personas, server, [READ])).grants.get()
    in_groups(personas, "alice", ["eng"])
    allow(personas, server)
    assert list(Grant.objects.filter(user=personas.alice, status="active")) == [own]
    assert check(personas, server)["source"] == "user"


# --- membership, read at every call ------------------------------------------------


def test_membership_is_read_at_every_call(personas, server):
    """Even before the member's grant is taken back (as if that had lagged),
    the live check reads the group: the ORM, the message plan's SQL and the
    outbound check all refuse at once."""
    in_groups(personas, "alice", ["eng"])
    allow(personas, server)
    grant = Grant.objects.get(user=personas.alice, server=server)
    assert outbound_check(grant_id=grant.id).allowed

    UserGroup.objects.filter(user=personas.alice).delete()

    assert grant_is_live(user=personas.alice, server_id=server.id, scope=READ) is None
    assert outbound_check(grant_id=grant.id).reason == NO_CONSENT
    planned = candidate_servers(
        host_id=personas.acme.id,
        user_id=personas.alice.id,
        ids=[server.id],
        conversation_events_only=False,
    )
    assert planned[0].live_grant_id is None


def test_leaving_the_group_takes_it_back_and_joining_gives_it_again(personas, server):
    in_groups(personas, "alice", ["eng", "ops"])
    allow(personas, server, groups=["eng", "ops"])
    in_groups(personas, "alice", ["ops"])  # still in one of its groups
    assert check(personas, server)["allowed"] is True

    in_groups(personas, "alice", [])
    assert check(personas, server)["allowed"] is False
    left = Grant.objects.get(user=personas.alice, server=server)
    assert left.status == GrantStatus.REVOKED
    entry = AuditEntry.objects.filter(kind="consent.revoked", subject_id=left.id).get()
    assert entry.detail["reason"] == "left_group"
    assert [d["status"] for d in deliveries(personas)] == ["active", "revoked"]

    in_groups(personas, "alice", ["eng"])
    assert check(personas, server)["allowed"] is True
    assert Grant.objects.filter(user=personas.alice, server=server).count() == 2


# --- what a member may turn off -----------------------------------------------------


def test_without_user_can_revoke_there_is_no_control_and_the_api_refuses(personas, server):
    in_groups(personas, "alice", ["eng"])
    allow(personas, server, user_can_revoke=False)
    grant = Grant.objects.get(user=personas.alice, server=server)

    refused = personas.acme_api.delete(f"/grants/{grant.id}")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "revoke_not_allowed"
    page = signed_in(personas.alice).get("/consent/servers/").content.decode()
    assert "Allowed by your organisation" in page and "API key" in page
    assert f'action="/consent/grants/{grant.id}/revoke"' not in page
    assert "Take back everything from Notes" not in page
    assert signed_in(personas.alice).post(f"/consent/grants/{grant.id}/revoke").status_code == 403
    signed_in(personas.alice).post("/consent/revoke-all", {"confirm": "yes"})
    grant.refresh_from_db()
    assert grant.status == GrantStatus.ACTIVE
    assert check(personas, server)["allowed"] is True


def test_with_user_can_revoke_the_user_turns_it_off_for_good(personas, server):
    in_groups(personas, "alice", ["eng"])
    allow(personas, server)
    grant = Grant.objects.get(user=personas.alice, server=server)
    page = signed_in(personas.alice).get("/consent/servers/").content.decode()
    assert f'action="/consent/grants/{grant.id}/revoke"' in page

    answer = personas.acme_api.delete(f"/grants/{grant.id}")
    assert answer.status_code == 200 and answer.json()["status"] == "revoked"
    assert check(personas, server)["allowed"] is False
    # Joining another group does not give it back: the user said no.
    in_groups(personas, "alice", ["eng", "ops"])
    assert check(personas, server)["allowed"] is False
    assert AuditEntry.objects.filter(kind="consent.revoked", subject_id=grant.id).exists()


# --- ending, expiring ----------------------------------------------------------------


def test_ending_it_stops_it_for_every_member(personas, server):
    in_groups(personas, "alice", ["eng"])
    in_groups(personas, "bob", ["eng"])
    org = allow(personas, server)
    assert personas.acme_api.delete(f"/org-grants/{org['id']}").status_code == 204
    ended = personas.acme_api.get(f"/org-grants/{org['id']}").json()
    assert ended["status"] == "ended" and ended["ended_by"].startswith("API key")
    for user in ("alice", "bob"):
        assert check(personas, server, user=user)["allowed"] is False
        assert deliveries(personas, user)[-1]["status"] == "revoked"
    assert AuditEntry.objects.filter(kind="org_grant.ended", subject_id=org["id"]).exists()
    # Ended is ended: a new member gets nothing.
    in_groups(personas, "carol", ["eng"])
    assert check(personas, server, user="carol")["allowed"] is False


def test_an_expired_org_grant_allows_nothing(personas, server):
    in_groups(personas, "alice", ["eng"])
    org = allow(personas, server, expires_at=(timezone.now() + timedelta(hours=1)).isoformat())
    OrgGrant.objects.filter(pk=org["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert check(personas, server)["allowed"] is False
    assert personas.acme_api.get(f"/org-grants/{org['id']}").json()["status"] == "expired"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"scopes": []}, "scopes"),
        ({"scopes": ["everything"]}, "scopes"),
        ({"groups": []}, "groups"),
        ({"groups": ["*", "eng"]}, "groups"),
        ({"groups": ["x" * 101]}, "groups"),
        ({"hook_ids": ["nope"], "scopes": ["hooks"]}, "hook_ids"),
        ({"hook_ids": ["nope"]}, "hook_ids"),
        ({"event_types": ["nope.nope"], "scopes": ["events"]}, "event_types"),
        ({"expires_at": "2001-01-01T00:00:00Z"}, "expires_at"),
        ({"user_can_revoke": "yes"}, "user_can_revoke"),
    ],
)
def test_bad_org_grants_are_refused_naming_the_field(personas, server, body, field):
    payload = {
        "server": server.id,
        "scopes": [READ],
        "groups": ["eng"],
        "user_can_revoke": True,
        **body,
    }
    answer = personas.acme_api.post("/org-grants", payload)
    assert answer.status_code == 422, answer.json()
    assert answer.json()["error"]["field"] == field
    assert not OrgGrant.objects.exists()


def test_another_hosts_org_grants_are_not_found(personas, server):
    org = allow(personas, server)
    bravo = personas.bravo_api
    assert bravo.get(f"/org-grants/{org['id']}").status_code == 404
    assert bravo.delete(f"/org-grants/{org['id']}").status_code == 404
    assert bravo.post(f"/org-grants/{org['id']}/approve").status_code == 404
    assert bravo.get("/org-grants").json()["items"] == []
    answer = bravo.post(
        "/org-grants",
        {"server": server.id, "scopes": [READ], "groups": ["*"], "user_can_revoke": True},
    )
    assert answer.status_code == 404


# --- the policy and the kill switch win ----------------------------------------------


def test_a_blocked_server_or_one_the_policy_denies_gets_no_org_grant(personas, server):
    body = {"server": server.id, "scopes": [READ], "groups": ["*"], "user_can_revoke": True}
    server_block(server=server, actor=SYSTEM)
    blocked = personas.acme_api.post("/org-grants", body)
    assert blocked.status_code == 409 and blocked.json()["error"]["code"] == "server_blocked"
    server_unblock(server=server, actor=SYSTEM)
    other = declaring_server(personas.acme, name="Other")
    host_policy_update(
        host=personas.acme, actor=SYSTEM, server_list_mode="allow", listed_server_ids=[other.id]
    )
    denied = personas.acme_api.post("/org-grants", body)
    assert denied.status_code in (403, 409), denied.json()
    assert denied.json()["error"]["code"] in ("server_not_allowed", "server_blocked")
    assert not OrgGrant.objects.exists()


def test_the_kill_switch_stops_an_org_grant_until_an_admin_allows_it_again(personas, server):
    in_groups(personas, "alice", ["eng"])
    org = allow(personas, server)
    grant = Grant.objects.get(user=personas.alice, server=server)
    server_block(server=server, actor=SYSTEM)
    assert outbound_check(grant_id=grant.id).reason in (NO_CONSENT, SERVER_BLOCKED)
    assert check(personas, server)["allowed"] is False
    assert personas.acme_api.get(f"/org-grants/{org['id']}").json()["status"] == "suspended"
    refused = personas.acme_api.post(f"/org-grants/{org['id']}/approve")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "server_blocked"

    server_unblock(server=server, actor=SYSTEM)
    assert check(personas, server)["allowed"] is False  # nothing comes back by itself
    again = personas.acme_api.post(f"/org-grants/{org['id']}/approve")
    assert again.status_code == 200 and again.json()["status"] == "active"
    assert check(personas, server)["allowed"] is True
    grant.refresh_from_db()
    assert grant.status == GrantStatus.ACTIVE
    assert personas.acme_api.post(f"/org-grants/{org['id']}/approve").status_code == 409


def test_a_policy_that_denies_the_server_beats_an_org_grant(personas, server):
    in_groups(personas, "alice", ["eng"])
    allow(personas, server)
    host_policy_update(
        host=personas.acme, actor=SYSTEM, server_list_mode="deny", listed_server_ids=[server.id]
    )
    answer = check(personas, server)
    assert answer["allowed"] is False and answer["reason"] == "denied_by_policy"
    grant = Grant.objects.get(user=personas.alice, server=server)
    assert not outbound_check(grant_id=grant.id).allowed


# --- hooks and events ------------------------------------------------------------------


def commit(personas, server, session):
    body = {
        "user": "alice",
        "event": "post_tool_use",
        "tool_name": "Bash",
        "tool_input": {"command": "git commit -m 'fix'"},
        "servers": [server.id],
    }
    return personas.acme_api.post(f"/sessions/{session}/lifecycle", body).json()


def test_hooks_fire_for_members_and_stop_when_it_ends(personas, settings):
    settings.HOOK_COOLDOWN = 0
    from hooks.selectors import compiled_hooks_clear

    compiled_hooks_clear()
    server = hooked_server(personas.acme, [COMMIT_HOOK])
    in_groups(personas, "alice", ["eng"])
    org = allow(personas, server, scopes=["hooks"])
    fired = commit(personas, server, "s1")
    assert [i["hook_id"] for i in fired["injections"]] == [hook_id_of(server, COMMIT_HOOK)]

    personas.acme_api.delete(f"/org-grants/{org['id']}")
    stopped = commit(personas, server, "s2")
    assert stopped["injections"] == []
    assert stopped["suppressed"][0]["reason"] == "no_consent"


def test_events_run_for_members_and_their_subscriptions_end_with_it(personas):
    server = make_event_server(personas.acme)
    in_groups(personas, "alice", ["eng"])
    org = allow(personas, server, scopes=["events"], event_types=["build.finished"])
    assert check(personas, server, scope="events", event_type="build.finished")["allowed"]
    assert not check(personas, server, scope="events", event_type="ticket.created")["allowed"]
    sub = make_subscription(personas.alice, server, event="build.finished")

    personas.acme_api.delete(f"/org-grants/{org['id']}")
    sub.refresh_from_db()
    assert sub.status == SubscriptionStatus.REVOKED
    assert grant_is_live(user=personas.alice, server_id=server.id, scope="events") is None


# --- the pages -------------------------------------------------------------------------


def test_admins_create_and_end_on_the_staff_page_and_auditors_only_read(personas, server):
    in_groups(personas, "alice", ["eng"])
    admin = signed_in(personas.admin)
    created = admin.post(
        "/staff/org-grants/new",
        {"server": server.id, "scopes": [READ], "groups": "eng, ops", "user_can_revoke": "on"},
    )
    assert created.status_code == 302, created.content.decode()[:2000]
    org = OrgGrant.objects.get()
    assert org.groups == ["eng", "ops"] and org.created_by == "admin@acme.test"
    assert org.created_by_user == personas.admin
    page = admin.get("/staff/org-grants/").content.decode()
    assert "admin@acme.test" in page and "eng, ops" in page and "until ended" in page
    assert f"/staff/org-grants/{org.id}/end" in page

    mine = signed_in(personas.alice).get("/consent/servers/").content.decode()
    assert "Allowed by your organisation" in mine and "admin@acme.test" in mine

    auditor = signed_in(personas.auditor)
    read = auditor.get("/staff/org-grants/").content.decode()
    assert "admin@acme.test" in read and f"/staff/org-grants/{org.id}/end" not in read
    assert auditor.post(f"/staff/org-grants/{org.id}/end").status_code == 403
    assert auditor.post("/staff/org-grants/new", {"server": server.id}).status_code == 403

    bad = admin.post(
        "/staff/org-grants/new", {"server": server.id, "scopes": [READ], "groups": "*, eng"}
    )
    assert bad.status_code == 422 and "stands alone" in bad.content.decode()

    assert admin.post(f"/staff/org-grants/{org.id}/end").status_code == 302
    org.refresh_from_db()
    assert org.status == OrgGrantStatus.ENDED and org.ended_by == "admin@acme.test"
    assert check(personas, server)["allowed"] is False


def test_the_staff_user_page_shows_the_users_groups(personas):
    in_groups(personas, "alice", ["eng", "ops"])
    page = signed_in(personas.admin).get(f"/staff/consents/users/{personas.alice.id}/")
    html = page.content.decode()
    assert page.status_code == 200
    assert '<span class="badge">eng</span>' in html and '<span class="badge">ops</span>' in html


def test_an_org_grant_for_a_group_with_no_members_yet_waits_for_them(personas, server):
    org = allow(personas, server, groups=["later"])
    assert not Grant.objects.exists()
    dora = make_user(personas.acme, "dora")
    assert check(personas, server, user="dora")["allowed"] is False
    in_groups(personas, "dora", ["later"])
    assert Grant.objects.get(user=dora).org_grant_id == org["id"]


def test_changed_declarations_hold_it_for_an_admin_not_the_user(personas, server):
    from consent.models import ConsentRequest
    from tests.consent.support import HOOKS, redeclare

    in_groups(personas, "alice", ["eng"])
    org = allow(personas, server, scopes=["hooks"])
    changed = [{**HOOKS[0], "context": "Something else entirely."}, *HOOKS[1:]]
    redeclare(server, hooks=changed)

    grant = Grant.objects.get(user=personas.alice, server=server)
    assert grant.status == GrantStatus.SUSPENDED
    assert personas.acme_api.get(f"/org-grants/{org['id']}").json()["status"] == "suspended"
    assert not ConsentRequest.objects.filter(user=personas.alice).exists()  # nobody asks alice
    assert deliveries(personas)[-1]["status"] == "suspended"
    assert check(personas, server, scope="hooks")["allowed"] is False

    again = personas.acme_api.post(f"/org-grants/{org['id']}/approve")
    assert again.status_code == 200 and again.json()["status"] == "active"
    grant.refresh_from_db()
    assert grant.status == GrantStatus.ACTIVE
    assert grant.approved_hash == grant.declaration_hash
    assert check(personas, server, scope="hooks")["allowed"] is True
    assert AuditEntry.objects.filter(kind="org_grant.approved", subject_id=org["id"]).exists()
