"""Consent as of a moment: ``GET /users/{id}/grants?at=`` and the staff page's
"as of" control rebuild a user's grants at a past time from the ledger, and
agree with the printable consent record step by step."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import quote

import pytest
from django.test import Client
from django.utils import timezone

from consent.as_of import grants_as_of
from consent.selectors import consent_at, consent_evidence
from switchboard.models import AuditEntry
from switchboard.services.audit import audit_record
from switchboard.services.ledger_checkpoints import checkpoint_issue
from tests.consent.support import allow_all, declaring_server, open_request
from tests.core import rfc9162
from tests.factories import SYSTEM


def iso(moment) -> str:
    return quote(moment.isoformat())


@pytest.fixture
def story(personas):
    """Alice allows reading her messages, then revokes it through the API."""
    server = declaring_server(personas.acme)
    before = timezone.now()
    request = allow_all(open_request(personas, server, ["conversation:read"]))
    grant = request.grants.get()
    allowed = timezone.now()
    assert personas.acme_api.delete(f"/grants/{grant.id}").status_code == 200
    revoked = timezone.now()
    return server, grant, before, allowed, revoked


def test_the_grants_before_and_after_a_revoke(personas, story):
    server, grant, before, allowed, revoked = story
    api = personas.acme_api

    assert api.get(f"/users/alice/grants?at={iso(before)}").json() == {
        "items": [],
        "next_cursor": None,
        "ledger": {"entry": None, "leaf_index": None, "checkpoint": None, "reason": "no_entries"},
    }
    [then] = api.get(f"/users/alice/grants?at={iso(allowed)}").json()["items"]
    assert (then["id"], then["server"], then["scope"]) == (grant.id, server.id, "conversation:read")
    assert then["status"] == "active" and then["revoked_at"] is None
    assert then["granted_at"] is not None and then["identity"] == "host"
    assert then["declaration_hash"] == grant.declaration_hash

    [after] = api.get(f"/users/alice/grants?at={iso(revoked)}").json()["items"]
    assert after["status"] == "revoked" and after["revoked_at"] is not None
    # Now and as of now say the same.
    [now] = api.get("/users/alice/grants").json()["items"]
    assert {k: now[k] for k in ("id", "status", "scope")} == {
        k: after[k] for k in ("id", "status", "scope")
    }
    # Another host's key cannot ask about alice.
    assert personas.bravo_api.get(f"/users/alice/grants?at={iso(allowed)}").status_code == 404


@pytest.mark.parametrize(
    "bad",
    ["yesterday", "2026-01-31", "2026-01-31T09:00:00", "1700000000", "2026-13-01T00:00:00Z"],
)
def test_a_bad_moment_is_refused_naming_the_field(personas, bad):
    answer = personas.acme_api.get(f"/users/alice/grants?at={quote(bad)}")
    assert answer.status_code == 422, answer.content
    assert answer.json()["error"]["field"] == "at"


def test_it_agrees_with_the_consent_record_at_every_step(personas, story):
    server = story[0]
    allow_all(open_request(personas, server, ["hooks", "events"]), remember="1d")
    for step in consent_evidence(user=personas.alice):
        states = {g.id: g for g in grants_as_of(user=personas.alice, at=step.at)}
        grant_id = next(
            g.id
            for g in states.values()
            if (g.server_id, g.scope) == (step.server_id, step.scope) and g.last_entry_at == step.at
        )
        assert states[grant_id].status == step.status, step
        # And with consent_at, which keeps one state per server and scope.
        assert consent_at(user=personas.alice, at=step.at)[(step.server_id, step.scope)][
            "status"
        ] == (step.status)


def test_an_expiry_counts_as_of_the_moment_asked(personas):
    server = declaring_server(personas.acme)
    allow_all(open_request(personas, server, ["conversation:read"]), remember="1d")
    later = timezone.now() + timedelta(days=2)
    [grant] = grants_as_of(user=personas.alice, at=later)
    assert grant.status == "expired"
    [now] = grants_as_of(user=personas.alice, at=timezone.now())
    assert now.status == "active"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_staff_page_shows_consent_as_of_a_moment(personas, story):
    _, grant, _, allowed, revoked = story
    staff = signed_in(personas.auditor)
    url = f"/staff/consents/users/{personas.alice.id}/"
    page = staff.get(url).content.decode()
    assert 'name="at"' in page and "data-as-of" not in page

    then = staff.get(url, {"at": allowed.strftime("%Y-%m-%dT%H:%M:%S.%f")}).content.decode()
    assert f'data-grant="{grant.id}" data-status="active"' in then
    after = staff.get(url, {"at": revoked.isoformat()}).content.decode()
    assert f'data-grant="{grant.id}" data-status="revoked"' in after

    bad = staff.get(url, {"at": "last tuesday"})
    assert bad.status_code == 422
    assert "at: give a date and time" in bad.content.decode()
    # Staff of another host cannot open alice's page at all.
    assert signed_in(personas.charlie).get(url, {"at": revoked.isoformat()}).status_code in (
        302,
        403,
        404,
    )


def _step(grant, kind: str) -> AuditEntry:
    return AuditEntry.objects.get(kind=f"consent.{kind}", subject_type="grant", subject_id=grant.id)


def test_an_answer_as_of_a_moment_carries_the_checkpoint_that_covers_it(personas, story):
    import base64

    _, grant, _, allowed, revoked = story
    api, host = personas.acme_api, personas.acme
    approved, revoke = _step(grant, "approved"), _step(grant, "revoked")
    assert approved.leaf_index < revoke.leaf_index

    # Before any checkpoint: the position, and why nothing covers it yet.
    assert api.get(f"/users/alice/grants?at={iso(allowed)}").json()["ledger"] == {
        "entry": str(approved.id),
        "leaf_index": approved.leaf_index,
        "checkpoint": None,
        "reason": "not_signed_yet",
    }
    first = checkpoint_issue(host.id)
    audit_record(host_id=host.id, kind="test.step", actor=SYSTEM, summary="later")
    second = checkpoint_issue(host.id)
    assert first.tree_size > revoke.leaf_index and second.tree_size > first.tree_size

    for moment, entry in ((allowed, approved), (revoked, revoke)):
        ledger = api.get(f"/users/alice/grants?at={iso(moment)}").json()["ledger"]
        assert (ledger["entry"], ledger["leaf_index"], ledger["reason"]) == (
            str(entry.id),
            entry.leaf_index,
            None,
        )
        # The smallest checkpoint holding the leaf, its note signed, and the
        # entry provably in its tree (the independent verifier's reading).
        checkpoint = ledger["checkpoint"]
        assert checkpoint["tree_size"] == first.tree_size
        origin, size, root = rfc9162.note_checkpoint(checkpoint["note"], checkpoint["key"]["vkey"])
        assert (origin, size) == (checkpoint["origin"], first.tree_size)
        assert root == base64.b64decode(checkpoint["root_hash"])
        proof = api.get(f"/audit/proof/inclusion?entry={entry.id}&tree_size={size}").json()
        assert rfc9162.inclusion_holds(
            entry.leaf_index,
            size,
            rfc9162.leaf(bytes.fromhex(entry.content_hash)),
            [base64.b64decode(h) for h in proof["hashes"]],
            root,
        )
    # Without at, there is no position to give.
    assert api.get("/users/alice/grants").json()["ledger"] is None

    # The staff page says the same, with the note to print.
    url = f"/staff/consents/users/{personas.alice.id}/"
    page = signed_in(personas.auditor).get(url, {"at": allowed.isoformat()}).content.decode()
    assert (
        f'data-as-of-entry="{approved.id}" data-as-of-leaf="{approved.leaf_index}" '
        f'data-as-of-checkpoint="{first.tree_size}"'
    ) in page
    assert first.note.splitlines()[0] in page and first.root_hash in page


def test_the_staff_page_says_when_no_checkpoint_covers_the_answer_yet(personas, story):
    _, grant, _, allowed, _ = story
    url = f"/staff/consents/users/{personas.alice.id}/"
    page = signed_in(personas.auditor).get(url, {"at": allowed.isoformat()}).content.decode()
    approved = _step(grant, "approved")
    assert f'data-as-of-entry="{approved.id}"' in page and "data-as-of-checkpoint" not in page
    assert "not yet covered by a signed checkpoint" in page
