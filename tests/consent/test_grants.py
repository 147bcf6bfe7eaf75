from datetime import timedelta

import pytest
from django.db import IntegrityError
from django.utils import timezone

from consent.models import Grant, GrantStatus
from consent.selectors import grant_is_live
from consent.services import (
    grant_approve,
    grant_deny,
    grant_request,
    grant_revoke,
    grants_expire_due,
    grants_revoke_all,
)
from switchboard.errors import Conflict, Invalid
from switchboard.models import AuditEntry
from tests.factories import SYSTEM, make_server


@pytest.fixture
def server(personas):
    return make_server(personas.acme, "Notes")


def test_a_grant_is_live_only_once_approved_and_until_revoked(personas, server):
    alice = personas.alice
    grant = grant_request(user=alice, server=server, scope="conversation:read", actor=SYSTEM)
    assert grant.status == GrantStatus.PENDING
    assert grant_is_live(user=alice, server_id=server.id, scope="conversation:read") is None
    grant_approve(grant=grant, actor=SYSTEM)
    assert grant_is_live(user=alice, server_id=server.id, scope="conversation:read").id == grant.id
    assert grant_is_live(user=personas.bob, server_id=server.id, scope="conversation:read") is None
    grant_revoke(grant=grant, actor=SYSTEM)
    assert grant_is_live(user=alice, server_id=server.id, scope="conversation:read") is None


def test_requesting_again_returns_the_open_grant(personas, server):
    first = grant_request(user=personas.alice, server=server, scope="hooks", actor=SYSTEM)
    again = grant_request(user=personas.alice, server=server, scope="hooks", actor=SYSTEM)
    assert first.id == again.id


def test_only_one_open_grant_per_user_server_scope_is_a_constraint(personas, server):
    grant_request(user=personas.alice, server=server, scope="events", actor=SYSTEM)
    with pytest.raises(IntegrityError):
        Grant.objects.create(host=personas.acme, user=personas.alice, server=server, scope="events")


def test_hooks_and_event_types_must_each_be_approved(personas, server):
    grant = grant_request(user=personas.alice, server=server, scope="hooks", actor=SYSTEM)
    grant_approve(grant=grant, actor=SYSTEM, hook_ids=["h1"])
    assert grant_is_live(user=personas.alice, server_id=server.id, scope="hooks", hook_id="h1")
    assert (
        grant_is_live(user=personas.alice, server_id=server.id, scope="hooks", hook_id="h2") is None
    )
    events = grant_request(user=personas.alice, server=server, scope="events", actor=SYSTEM)
    grant_approve(grant=events, actor=SYSTEM, event_types=["build.finished"])
    assert grant_is_live(
        user=personas.alice, server_id=server.id, scope="events", event_type="build.finished"
    )
    assert (
        grant_is_live(user=personas.alice, server_id=server.id, scope="events", event_type="x")
        is None
    )


def test_expired_grants_stop_at_once_and_are_closed_by_the_sweep(personas, server):
    grant = grant_request(
        user=personas.alice, server=server, scope="conversation:read", actor=SYSTEM
    )
    grant_approve(grant=grant, actor=SYSTEM, expires_at=timezone.now() + timedelta(hours=1))
    later = timezone.now() + timedelta(hours=2)
    assert (
        grant_is_live(user=personas.alice, server_id=server.id, scope="conversation:read", at=later)
        is None
    )
    Grant.objects.filter(pk=grant.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert grants_expire_due() == 1
    grant.refresh_from_db()
    assert grant.status == GrantStatus.EXPIRED
    with pytest.raises(Invalid):
        grant_approve(
            grant=grant_request(user=personas.bob, server=server, scope="hooks", actor=SYSTEM),
            actor=SYSTEM,
            expires_at=timezone.now() - timedelta(seconds=1),
        )


def test_a_denied_grant_cannot_be_approved_later(personas, server):
    grant = grant_request(user=personas.alice, server=server, scope="hooks", actor=SYSTEM)
    grant_deny(grant=grant, actor=SYSTEM)
    with pytest.raises(Conflict):
        grant_approve(grant=grant, actor=SYSTEM)


def test_revoke_all_closes_every_open_grant(personas, server):
    for scope in ("hooks", "events", "conversation:read"):
        grant_approve(
            grant=grant_request(user=personas.alice, server=server, scope=scope, actor=SYSTEM),
            actor=SYSTEM,
        )
    assert grants_revoke_all(user=personas.alice, actor=SYSTEM) == 3
    assert not Grant.objects.filter(user=personas.alice, status="active").exists()


def test_every_change_is_in_the_ledger(personas, server):
    grant = grant_request(user=personas.alice, server=server, scope="hooks", actor=SYSTEM)
    grant_approve(grant=grant, actor=SYSTEM, hook_ids=["h1"])
    grant_revoke(grant=grant, actor=SYSTEM)
    kinds = list(
        AuditEntry.objects.filter(subject_id=grant.id).order_by("id").values_list("kind", flat=True)
    )
    assert kinds == ["consent.requested", "consent.approved", "consent.revoked"]


def test_grants_api_lists_revokes_and_checks(personas, server):
    api = personas.acme_api
    grant = grant_request(user=personas.alice, server=server, scope="hooks", actor=SYSTEM)
    grant_approve(grant=grant, actor=SYSTEM, hook_ids=["h1"])
    items = api.get("/users/alice/grants").json()["items"]
    assert items[0]["id"] == grant.id and items[0]["approved_hooks"] == ["h1"]
    check = {"user": "alice", "server": server.id, "scope": "hooks", "hook_id": "h1"}
    assert api.post("/consent/check", check).json() == {
        "allowed": True,
        "grant_id": grant.id,
        "reason": "active_grant",
        "source": "user",
    }
    assert api.post("/consent/check", {**check, "hook_id": "h2"}).json()["allowed"] is False
    assert api.post("/consent/check", {**check, "scope": "nope"}).status_code == 422
    assert personas.bravo_api.delete(f"/grants/{grant.id}").status_code == 404
    revoked = api.delete(f"/grants/{grant.id}")
    assert revoked.status_code == 200 and revoked.json()["status"] == "revoked"
    assert api.post("/consent/check", check).json() == {
        "allowed": False,
        "grant_id": None,
        "reason": "no_consent",
    }


def test_live_means_the_same_in_the_orm_and_in_the_message_plan_sql(personas):
    """``Grant.objects.live()`` is the one ORM definition; the message plan's raw
    SQL repeats it and must agree, state by state."""
    from consent.plan_sql import candidate_servers

    now = timezone.now()
    cases = {
        "forever": (GrantStatus.ACTIVE, None),
        "later": (GrantStatus.ACTIVE, now + timedelta(hours=1)),
        "past": (GrantStatus.ACTIVE, now - timedelta(seconds=1)),  # the sweep has not run yet
        "pending": (GrantStatus.PENDING, None),
        "suspended": (GrantStatus.SUSPENDED, None),
        "revoked": (GrantStatus.REVOKED, None),
    }
    servers = {}
    for name, (status, expires_at) in cases.items():
        servers[name] = make_server(personas.acme, name)
        Grant.objects.create(
            host=personas.acme,
            user=personas.alice,
            server=servers[name],
            scope="conversation:read",
            status=status,
            expires_at=expires_at,
        )
    by_orm = set(
        Grant.objects.live().filter(user=personas.alice).values_list("server_id", flat=True)
    )
    planned = candidate_servers(
        host_id=personas.acme.id,
        user_id=personas.alice.id,
        ids=[s.id for s in servers.values()],
        conversation_events_only=False,
    )
    by_sql = {s.id for s in planned if s.live_grant_id}
    assert by_orm == {servers["forever"].id, servers["later"].id}
    assert by_sql == by_orm
    for name, server in servers.items():
        live = grant_is_live(user=personas.alice, server_id=server.id, scope="conversation:read")
        assert (live is not None) == (server.id in by_orm), name
