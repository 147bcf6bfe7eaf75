"""A server asks again, for more than the user already allows (defect 1 of the
console issue): the answer applies to what that request adds, and what was
approved before stays approved, whichever button the user presses."""

import pytest
from django.test import Client

from consent.models import ConsentRequest, Grant
from consent.selectors import grant_is_live
from consent.snapshots import snapshot_hook_ids
from switchboard.models import AuditEntry
from tests.consent.support import allow_all, declaring_server, open_request


@pytest.fixture
def server(personas):
    return declaring_server(personas.acme)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def answer(personas, request, **form):
    """Post the consent form as the browser does (no JavaScript)."""
    page = signed_in(personas.alice).post(
        f"/consent/{request.id}/decide", {"remember": "forever", **form}
    )
    assert page.status_code == 302, page.content.decode()[:2000]
    request.refresh_from_db()
    return signed_in(personas.alice).get(f"/consent/{request.id}/").content.decode()


def live(personas, server, scope, **item):
    return grant_is_live(user=personas.alice, server_id=server.id, scope=scope, **item)


def no_revocation(grant):
    return not AuditEntry.objects.filter(subject_id=grant.id, kind="consent.revoked").exists()


@pytest.mark.parametrize("how", ["all", "per-scope"])
def test_denying_a_new_event_type_keeps_the_one_already_allowed(personas, server, how):
    allow_all(open_request(personas, server, ["events"], event_types=["build.finished"]))
    second = open_request(personas, server, ["events"], event_types=["issue.opened"])
    grant = second.grants.get()
    form = {"all": "deny"} if how == "all" else {f"decision-{grant.id}": "deny"}

    page = answer(personas, second, **form)

    grant.refresh_from_db()
    assert grant.status == "active"
    assert grant.approved_event_types == ["build.finished"]
    assert live(personas, server, "events", event_type="build.finished")
    assert not live(personas, server, "events", event_type="issue.opened")
    assert no_revocation(grant)
    assert second.status == "denied"
    assert "You still allow" in page and "build.finished" in page
    denial = AuditEntry.objects.get(subject_id=grant.id, kind="consent.additions_denied")
    assert denial.detail["denied_event_types"] == ["issue.opened"]


def test_allow_all_on_a_second_request_adds_to_what_was_allowed(personas, server):
    allow_all(open_request(personas, server, ["events"], event_types=["build.finished"]))
    second = open_request(personas, server, ["events"], event_types=["issue.opened"])

    answer(personas, second, all="allow")

    grant = second.grants.get()
    assert grant.approved_event_types == ["build.finished", "issue.opened"]
    assert live(personas, server, "events", event_type="build.finished")
    assert live(personas, server, "events", event_type="issue.opened")
    assert second.status == "approved"


def test_the_second_request_offers_only_what_it_adds(personas, server):
    allow_all(open_request(personas, server, ["events"], event_types=["build.finished"]))
    second = open_request(personas, server, ["events"], event_types=["issue.opened"])
    grant = second.grants.get()
    html = signed_in(personas.alice).get(f"/consent/{second.id}/").content.decode()
    assert f'name="events-{grant.id}" value="issue.opened"' in html
    assert f'name="events-{grant.id}" value="build.finished"' not in html
    assert "You already allow" in html


def test_denying_more_hooks_keeps_the_hooks_already_allowed(personas, server):
    first = open_request(personas, server, ["hooks"])
    grant = first.grants.get()
    kept, *others = snapshot_hook_ids(grant.shown)
    answer(personas, first, **{f"decision-{grant.id}": "allow", f"hooks-{grant.id}": kept})
    assert first.status == "partially_approved"

    second = open_request(personas, server, ["hooks"])
    assert second.id != first.id and list(second.grants.all()) == [grant]
    page = answer(personas, second, all="deny")

    grant.refresh_from_db()
    assert grant.status == "active" and grant.approved_hook_ids == [kept]
    assert live(personas, server, "hooks", hook_id=kept)
    assert not any(live(personas, server, "hooks", hook_id=h) for h in others)
    assert no_revocation(grant)
    assert second.status == "denied"
    assert "You still allow" in page

    third = open_request(personas, server, ["hooks"])
    answer(personas, third, all="allow")
    assert all(live(personas, server, "hooks", hook_id=h) for h in [kept, *others])
    assert third.status == "approved"


def test_denying_a_request_that_also_asks_for_a_new_scope_keeps_the_old_one(personas, server):
    allow_all(open_request(personas, server, ["conversation:read"]))
    second = open_request(personas, server, ["conversation:read", "events"])

    page = answer(personas, second, all="deny")

    assert live(personas, server, "conversation:read")
    assert no_revocation(Grant.objects.get(scope="conversation:read"))
    assert Grant.objects.get(scope="events").status == "denied"
    assert second.status == "denied"
    assert "You still allow" in page


def test_allow_all_with_a_new_scope_keeps_the_old_one_and_adds_the_new(personas, server):
    allow_all(open_request(personas, server, ["conversation:read"]))
    second = open_request(personas, server, ["conversation:read", "hooks"])
    answer(personas, second, all="allow")
    assert live(personas, server, "conversation:read")
    assert live(personas, server, "hooks")
    assert second.status == "approved"


def test_asking_only_for_what_is_already_allowed_is_answered_at_once(personas, server):
    allow_all(open_request(personas, server, ["conversation:read"]))
    again = personas.acme_api.post(
        "/consent/requests",
        {"user": "alice", "server": server.id, "scopes": ["conversation:read"]},
    )
    assert again.status_code == 201, again.json()
    assert again.json()["status"] == "approved"
    assert ConsentRequest.objects.get(pk=again.json()["id"]).status == "approved"
    assert live(personas, server, "conversation:read")
