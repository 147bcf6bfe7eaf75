"""Consent drives subscriptions, both ways, against the real stack: approval
starts what waited, and revocation, expiry or suspension unsubscribes."""

from __future__ import annotations

import pytest

from consent.models import Grant, GrantStatus, Scope
from consent.services import grant_approve, grant_expire, grant_request, grant_revoke, grant_suspend
from subscriptions.models import Subscription
from switchboard.actors import Actor
from switchboard.services.servers import server_register
from tests.subscriptions.support import SYSTEM, wait_for

pytestmark = pytest.mark.processes


@pytest.fixture
def server(live, tpersonas, refserver):
    return server_register(
        host=tpersonas.acme, name="Reference", url=refserver.mcp_url, actor=SYSTEM
    )


def _status_is(sub_id, status):
    return lambda: Subscription.objects.get(pk=sub_id).status == status


def _calls(refserver, kind):
    return refserver.control("GET", f"received?kinds={kind}")[kind]


def _subscribe(api, server, event="build.finished", arguments=None):
    answer = api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": server.id,
            "event": event,
            "arguments": arguments if arguments is not None else {"repo": "acme/app"},
            "ttl_ms": 60000,
        },
    )
    assert answer.status_code == 201, answer.content
    return answer.json()


def _approve(user, server, types):
    grant = grant_request(
        user=user, server=server, scope=Scope.EVENTS, actor=SYSTEM, event_types=types
    )
    return grant_approve(grant=grant, actor=Actor.for_user(user), event_types=types)


def test_approval_starts_and_revocation_unsubscribes(tpersonas, server, refserver):
    created = _subscribe(tpersonas.acme_api, server)
    assert created["status"] == "pending_consent"
    assert _calls(refserver, "subscribe") == []

    grant = _approve(tpersonas.alice, server, ["build.finished"])
    wait_for(_status_is(created["id"], "active"), message="started on approval")
    assert len(_calls(refserver, "subscribe")) == 1

    grant_revoke(grant=grant, actor=Actor.for_user(tpersonas.alice))
    assert Subscription.objects.get(pk=created["id"]).status == "revoked"
    wait_for(lambda: _calls(refserver, "unsubscribe"), message="unsubscribed on revocation")
    assert _calls(refserver, "unsubscribe")[0]["name"] == "build.finished"


@pytest.mark.parametrize("ending", ["expired", "suspended"])
def test_an_expired_or_suspended_grant_unsubscribes(tpersonas, server, refserver, ending):
    grant = _approve(tpersonas.alice, server, ["build.finished"])
    created = _subscribe(tpersonas.acme_api, server)
    wait_for(_status_is(created["id"], "active"), message="active")
    if ending == "expired":
        grant_expire(grant=grant)
    else:
        grant_suspend(grant=grant, actor=SYSTEM)
    assert Grant.objects.get(pk=grant.pk).status == ending
    sub = Subscription.objects.get(pk=created["id"])
    assert sub.status == "revoked" and sub.last_error == "" and sub.next_refresh_at is None
    wait_for(lambda: _calls(refserver, "unsubscribe"), message="unsubscribed")


def test_the_api_revokes_a_grant_and_its_subscriptions(tpersonas, server, refserver):
    grant = _approve(tpersonas.alice, server, ["build.finished"])
    created = _subscribe(tpersonas.acme_api, server)
    wait_for(_status_is(created["id"], "active"), message="active")
    assert tpersonas.acme_api.delete(f"/grants/{grant.id}").status_code == 200
    assert Grant.objects.get(pk=grant.pk).status == GrantStatus.REVOKED
    assert Subscription.objects.get(pk=created["id"]).status == "revoked"
    wait_for(lambda: _calls(refserver, "unsubscribe"), message="unsubscribed")
