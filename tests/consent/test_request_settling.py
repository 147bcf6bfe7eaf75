"""When a consent request is settled: the rule (``request_rules``), applied
once by ``consent_request_settle``, called explicitly by the answer, by the
creation and by a grant's change elsewhere (``request_settling``)."""

import pytest

from consent.models import ConsentRequest, Grant, RequestStatus
from consent.services import grant_approve, grant_revoke
from consent.services.grant_suspension import grant_suspend
from consent.services.request_deciding import Decision, consent_request_decide
from consent.services.request_expiry import consent_request_expire
from consent.services.request_rules import (
    Outcome,
    additions_asked,
    already_allowed,
    grant_outcome,
    needs_answer,
    request_status,
)
from consent.services.request_settling import consent_request_settle, consent_requests_settle
from consent.snapshots import snapshot_hook_ids
from switchboard.actors import Actor
from switchboard.models import AuditEntry
from tests.consent.support import allow_all, declaring_server, open_request, redeclare
from tests.factories import SYSTEM

ALL, SOME, NONE, UNDECIDED, NOT_ASKED = (
    Outcome.ALL,
    Outcome.SOME,
    Outcome.NONE,
    Outcome.UNDECIDED,
    Outcome.NOT_ASKED,
)


@pytest.fixture
def server(personas):
    return declaring_server(personas.acme)


def decided_entries(request) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(kind="consent.request_decided", subject_id=request.id))


@pytest.mark.parametrize(
    ("outcomes", "status"),
    [
        ([], RequestStatus.APPROVED),
        ([NOT_ASKED], RequestStatus.APPROVED),
        ([ALL, NOT_ASKED, ALL], RequestStatus.APPROVED),
        ([NONE, NOT_ASKED], RequestStatus.DENIED),
        ([ALL, NONE], RequestStatus.PARTIALLY_APPROVED),
        ([SOME], RequestStatus.PARTIALLY_APPROVED),
        ([ALL, UNDECIDED], None),
        ([NONE, UNDECIDED, NOT_ASKED], None),
    ],
)
def test_the_status_follows_from_the_grants_outcomes(outcomes, status):
    assert request_status(outcomes) == status


def test_each_grants_outcome_is_read_from_its_state(personas, server):
    request = open_request(personas, server, ["conversation:read", "hooks"])
    conversation, hooks = request.grants.order_by("scope")
    assert [grant_outcome(request, g) for g in (conversation, hooks)] == [UNDECIDED, UNDECIDED]
    assert needs_answer(request, conversation) and not already_allowed(request, conversation)

    some_hooks = snapshot_hook_ids(hooks.shown)[:1]
    hooks = grant_approve(grant=hooks, actor=SYSTEM, hook_ids=some_hooks)
    conversation = grant_revoke(grant=conversation, actor=SYSTEM)
    assert grant_outcome(request, hooks) == SOME
    assert grant_outcome(request, conversation) == NONE


def test_what_a_request_adds_to_an_active_grant_waits_for_the_answer(personas, server):
    allow_all(open_request(personas, server, ["events"], event_types=["build.finished"]))
    allow_all(open_request(personas, server, ["hooks"]))
    second = open_request(personas, server, ["events", "hooks"], event_types=["issue.opened"])
    events, hooks = second.grants.order_by("scope")
    assert additions_asked(second, events) == {"hook_ids": [], "event_types": ["issue.opened"]}
    assert grant_outcome(second, events) == UNDECIDED  # only the answer can tell
    assert already_allowed(second, hooks) and grant_outcome(second, hooks) == NOT_ASKED
    assert not needs_answer(second, hooks)
    assert second.status == RequestStatus.PENDING


def test_settling_waits_while_anything_is_undecided_then_closes_once(personas, server):
    request = open_request(personas, server, ["conversation:read", "hooks"])
    locked = ConsentRequest.objects.select_for_update().get(pk=request.pk)
    assert consent_request_settle(request=locked, actor=SYSTEM) is None
    assert decided_entries(request) == []

    answered = {g.id: NONE for g in request.grants.all()}
    staff = Actor.for_user(personas.admin)
    assert consent_request_settle(
        request=locked, actor=staff, answered=answered, decided_by=personas.admin, channel="staff"
    ) == (RequestStatus.DENIED)
    request.refresh_from_db()
    assert (request.status, request.decided_by, request.channel) == (
        "denied",
        personas.admin,
        "staff",
    )
    (entry,) = decided_entries(request)
    assert entry.detail["status"] == "denied"


def test_a_grant_changed_elsewhere_settles_the_open_requests_it_completes(personas, server):
    request = open_request(personas, server, ["conversation:read"])
    other = open_request(personas, server, ["conversation:read", "hooks"])
    grant = request.grants.get()
    grant_approve(grant=grant, actor=SYSTEM, decided_by=personas.alice)
    request.refresh_from_db()
    other.refresh_from_db()
    assert request.status == RequestStatus.APPROVED and request.decided_by == personas.alice
    assert other.status == RequestStatus.PENDING  # its hooks are still undecided
    assert len(decided_entries(request)) == 1


def test_the_request_being_answered_is_left_to_settle_on_its_answer(personas, server):
    request = open_request(personas, server, ["conversation:read"])
    grant = request.grants.get()
    Grant.objects.filter(pk=grant.pk).update(status="active")
    grant.refresh_from_db()
    consent_requests_settle(grant=grant, answering=request)
    request.refresh_from_db()
    assert request.status == RequestStatus.PENDING
    consent_requests_settle(grant=grant)
    request.refresh_from_db()
    assert request.status == RequestStatus.APPROVED


def test_an_answer_settles_its_request_once_in_the_answerers_name(personas, server):
    """The answer, not a grant's change on the way, closes it: one ledger
    entry, by whoever answered."""
    request = open_request(personas, server, ["conversation:read", "hooks"])
    conversation, hooks = request.grants.order_by("scope")
    alice = Actor.for_user(personas.alice)
    consent_request_decide(
        request=request,
        decisions={conversation.id: Decision(allow=True), hooks.id: Decision(allow=False)},
        remember="forever",
        actor=alice,
        decided_by=personas.alice,
    )
    (entry,) = decided_entries(request)
    assert entry.detail["status"] == RequestStatus.PARTIALLY_APPROVED
    assert (entry.actor_kind, entry.actor_id) == (alice.kind, alice.id)


def test_a_no_to_what_was_added_beside_a_yes_is_partly_approved(personas, server):
    """The answer says it, whatever order the grants are answered in: "no"
    to the new event type (the events grant keeps what it had) and "yes" to
    the hooks asked for the first time."""
    allow_all(open_request(personas, server, ["events"], event_types=["build.finished"]))
    second = open_request(personas, server, ["events", "hooks"], event_types=["issue.opened"])
    events, hooks = second.grants.order_by("scope")
    decided = consent_request_decide(
        request=second,
        decisions={
            events.id: Decision(allow=False),
            hooks.id: Decision(
                allow=True,
                hook_ids=snapshot_hook_ids(hooks.shown),
                shown_hash=hooks.declaration_hash,
            ),
        },
        remember="forever",
        actor=SYSTEM,
    )
    assert decided.status == RequestStatus.PARTIALLY_APPROVED
    events.refresh_from_db()
    assert events.status == "active" and events.approved_event_types == ["build.finished"]


def test_a_no_to_a_grant_approved_meanwhile_takes_nothing_back_and_counts_as_no(personas, server):
    request = open_request(personas, server, ["conversation:read", "hooks"])
    other = open_request(personas, server, ["conversation:read"])
    conversation, hooks = request.grants.order_by("scope")
    allow_all(other)  # the same conversation grant, approved through the other request
    decided = consent_request_decide(
        request=request,
        decisions={conversation.id: Decision(allow=False), hooks.id: Decision(allow=False)},
        remember="forever",
        actor=SYSTEM,
    )
    assert decided.status == RequestStatus.DENIED
    assert Grant.objects.get(pk=conversation.pk).status == "active"


def test_a_suspended_grant_asks_its_user_again_unless_the_server_is_blocked(personas, server):
    allow_all(open_request(personas, server, ["hooks"]))
    grant = Grant.objects.get(scope="hooks")
    redeclare(server, hooks=[])  # suspends it, and asks again
    asked = ConsentRequest.objects.filter(
        grants=grant, status="pending", origin="declarations_changed"
    )
    assert asked.count() == 1

    allow_all(open_request(personas, server, ["conversation:read"]))
    conversation = Grant.objects.get(scope="conversation:read")
    server.blocked_at = server.updated_at
    server.save(update_fields=["blocked_at"])
    grant_suspend(grant=conversation, actor=SYSTEM, reason="server_blocked")
    assert not ConsentRequest.objects.filter(grants=conversation, status="pending").exists()


def test_an_expired_request_takes_only_its_own_pending_grants(personas, server):
    request = open_request(personas, server, ["conversation:read", "hooks"])
    other = open_request(personas, server, ["hooks"])
    consent_request_expire(request=ConsentRequest.objects.get(pk=request.pk))
    statuses = dict(request.grants.values_list("scope", "status"))
    assert statuses == {"conversation:read": "expired", "hooks": "pending"}  # still asked
    assert ConsentRequest.objects.get(pk=other.pk).status == "pending"
