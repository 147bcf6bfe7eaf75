"""The ledger alone says who allowed what at any past moment."""

from datetime import timedelta

import pytest
from django.utils import timezone

from consent.models import ConsentRequest, Grant, RequestOrigin
from consent.selectors import consent_at
from consent.services import grant_revoke
from switchboard.actors import Actor
from tests.consent.support import HOOKS, allow_all, declaring_server, open_request, redeclare


@pytest.fixture
def server(personas):
    return declaring_server(personas.acme)


def simplify(state):
    return {
        scope: (row["status"], len(row.get("approved_hooks", [])), row.get("channel"))
        for (_, scope), row in state.items()
    }


def test_the_ledger_reconstructs_consent_at_a_past_moment(personas, server):
    alice = personas.alice
    before = timezone.now()

    request = allow_all(
        open_request(personas, server, ["conversation:read", "hooks"]),
        actor=Actor.for_user(alice),
        decided_by=alice,
    )
    after_approval = timezone.now()

    grant_revoke(grant=request.grants.get(scope="conversation:read"), actor=Actor.for_user(alice))
    after_revoke = timezone.now()

    redeclare(server, hooks=HOOKS[:2])
    after_change = timezone.now()

    reask = ConsentRequest.objects.get(origin=RequestOrigin.DECLARATIONS_CHANGED)
    allow_all(
        reask, actor=Actor.for_user(personas.admin), channel="staff", decided_by=personas.admin
    )
    after_staff = timezone.now()

    allow_all(open_request(personas, server, ["events"]), remember="1d")
    after_events = timezone.now()

    expected = {
        before: {},
        after_approval: {
            "conversation:read": ("active", 0, "browser"),
            "hooks": ("active", 3, "browser"),
        },
        after_revoke: {
            "conversation:read": ("revoked", 0, "browser"),
            "hooks": ("active", 3, "browser"),
        },
        after_change: {
            "conversation:read": ("revoked", 0, "browser"),
            "hooks": ("suspended", 3, "browser"),
        },
        after_staff: {
            "conversation:read": ("revoked", 0, "browser"),
            "hooks": ("active", 2, "staff"),
        },
    }
    for moment, state in expected.items():
        assert simplify(consent_at(user=alice, at=moment)) == state, moment

    at_staff = consent_at(user=alice, at=after_staff)[(server.id, "hooks")]
    assert at_staff["approved_by"]["id"] == personas.admin.id
    assert at_staff["approved_by"]["kind"] == "staff"
    # A "remember for 1 day" approval reads as expired two days later, even
    # though no sweep has run to record it.
    assert consent_at(user=alice, at=after_events)[(server.id, "events")]["status"] == "active"
    later = consent_at(user=alice, at=after_events + timedelta(days=2))
    assert later[(server.id, "events")]["status"] == "expired"

    # Not the grant rows: the ledger alone answers, even once they are gone.
    Grant.objects.filter(user=alice).delete()
    for moment, state in expected.items():
        assert simplify(consent_at(user=alice, at=moment)) == state, moment
    assert consent_at(user=personas.bob, at=after_events) == {}
