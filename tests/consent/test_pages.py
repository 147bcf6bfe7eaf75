"""The consent pages over plain HTTP (forms without JavaScript, and htmx)."""

import pytest
from django.test import Client

from consent.models import ConsentRequest, Grant, HostPolicy
from consent.snapshots import snapshot_hook_ids
from tests.consent.support import allow_all, declaring_server, open_request


@pytest.fixture
def server(personas):
    return declaring_server(personas.acme)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_consent_page_says_plainly_what_is_asked(personas, server):
    request = open_request(personas, server, ["conversation:read", "hooks", "events"])
    page = signed_in(personas.alice).get(f"/consent/{request.id}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Notes asks for permission" in html
    assert "Read your messages" in html
    assert "Acme’s shared account" in html  # the identity, said plainly
    assert "Required:" in html and "will treat it as <em>important</em> only" in html
    assert "Run the tests before pushing." in html  # the text the hook would inject
    assert "conversation/userMessage" in html  # the preview
    assert "What did we decide about the database schema?" in html
    assert "build.finished" in html
    for label in ("Remember for 1 day", "Remember for 30 days", "Until I take it back"):
        assert label in html


def test_the_preview_follows_the_sample_message(personas, server):
    request = open_request(personas, server, ["conversation:read"])
    client = signed_in(personas.alice)
    partial = client.get(
        f"/consent/{request.id}/preview", {"sample": "<b>tea</b> please"}, HTTP_HX_REQUEST="true"
    )
    assert partial.status_code == 200
    body = partial.content.decode()
    assert body.strip().startswith('<div id="preview"')
    assert "&lt;b&gt;tea&lt;/b&gt; please" in body and "<b>tea</b>" not in body
    # Without JavaScript the same form reloads the page with the sample.
    assert (
        "&lt;b&gt;tea"
        in client.get(f"/consent/{request.id}/", {"sample": "<b>tea"}).content.decode()
    )


def test_other_people_get_not_found(personas, server):
    request = open_request(personas, server, ["conversation:read"])
    assert signed_in(personas.bob).get(f"/consent/{request.id}/").status_code == 404
    assert signed_in(personas.bob).post(f"/consent/{request.id}/decide", {}).status_code == 404
    assert signed_in(personas.charlie).get(
        f"/staff/consents/requests/{request.id}/"
    ).status_code in (403, 404)
    assert Client().get(f"/consent/{request.id}/").status_code == 401


def test_a_plain_form_post_decides_per_scope_and_per_hook(personas, server):
    request = open_request(personas, server, ["conversation:read", "hooks"])
    grants = {g.scope: g for g in request.grants.all()}
    hooks = grants["hooks"]
    chosen = snapshot_hook_ids(hooks.shown)[1]
    answer = signed_in(personas.alice).post(
        f"/consent/{request.id}/decide",
        {
            f"decision-{grants['conversation:read'].id}": "deny",
            f"decision-{hooks.id}": "allow",
            f"hooks-{hooks.id}": [chosen],
            f"hash-{hooks.id}": hooks.declaration_hash,
            "remember": "30d",
        },
    )
    assert answer.status_code == 302 and answer["Location"] == f"/consent/{request.id}/"
    hooks.refresh_from_db()
    assert hooks.status == "active" and hooks.approved_hook_ids == [chosen]
    assert Grant.objects.get(pk=grants["conversation:read"].pk).status == "denied"
    page = signed_in(personas.alice).get(f"/consent/{request.id}/").content.decode()
    assert "Partly allowed" in page


def test_a_missing_answer_is_shown_next_to_its_question(personas, server):
    request = open_request(personas, server, ["conversation:read", "hooks"])
    answer = signed_in(personas.alice).post(
        f"/consent/{request.id}/decide", {"remember": "1d"}, HTTP_HX_REQUEST="true"
    )
    assert answer.status_code == 422
    assert "Choose “Allow” or “Don’t allow”." in answer.content.decode()
    assert ConsentRequest.objects.get(pk=request.pk).status == "pending"


def test_one_click_deny_and_allow_all(personas, server):
    first = open_request(personas, server, ["conversation:read", "hooks"])
    client = signed_in(personas.alice)
    denied = client.post(f"/consent/{first.id}/decide", {"all": "deny"}, HTTP_HX_REQUEST="true")
    assert denied.status_code == 200 and "Not allowed" in denied.content.decode()
    second = open_request(personas, server, ["hooks"])
    client.post(f"/consent/{second.id}/decide", {"all": "allow", "remember": "forever"})
    grant = second.grants.get()
    assert (
        grant.status == "active" and len(grant.approved_hook_ids) == 3 and grant.expires_at is None
    )


def test_authorized_servers_lists_and_revokes_in_one_click(personas, server):
    allow_all(open_request(personas, server, ["conversation:read", "hooks"]))
    client = signed_in(personas.alice)
    page = client.get("/consent/servers/").content.decode()
    assert "Notes" in page and "until taken back" in page
    grant = Grant.objects.get(user=personas.alice, scope="conversation:read")
    cards = client.post(f"/consent/grants/{grant.id}/revoke", HTTP_HX_REQUEST="true")
    assert (
        cards.status_code == 200
        and f'id="server-cards-{personas.alice.id}"' in cards.content.decode()
    )
    assert Grant.objects.get(pk=grant.pk).status == "revoked"
    # Bob cannot revoke Alice's grants.
    hooks = Grant.objects.get(user=personas.alice, scope="hooks")
    assert signed_in(personas.bob).post(f"/consent/grants/{hooks.id}/revoke").status_code == 404
    # Everything from one server: asked first, naming what goes.
    asked = client.post(f"/consent/servers/{server.id}/revoke")
    assert asked.status_code == 200 and "Yes, take back 1 permission" in asked.content.decode()
    assert Grant.objects.filter(user=personas.alice, status="active").exists()
    confirmed = client.post(f"/consent/servers/{server.id}/revoke", {"confirm": "yes"})
    assert confirmed.status_code == 302
    assert not Grant.objects.filter(user=personas.alice, status="active").exists()


def test_revoke_everything_asks_first_and_names_what_goes(personas, server):
    allow_all(open_request(personas, server, ["conversation:read", "events"]))
    other = declaring_server(personas.acme, name="Calendar")
    allow_all(open_request(personas, other, ["hooks"]))
    client = signed_in(personas.alice)
    cards = client.get("/consent/servers/").content.decode()
    assert 'href="/consent/revoke-all"' in cards  # a link to the question, not a form
    question = client.get("/consent/revoke-all").content.decode()
    for words in ("Notes", "Calendar", "Read your messages", "build.finished", "3 permissions"):
        assert words in question, words
    assert Grant.objects.filter(user=personas.alice, status="active").count() == 3
    # A post without the confirmation's own answer only asks again.
    assert client.post("/consent/revoke-all").status_code == 200
    assert Grant.objects.filter(user=personas.alice, status="active").count() == 3
    done = client.post("/consent/revoke-all", {"confirm": "yes"}, follow=True)
    assert "Taken back: 3 permissions." in done.content.decode()
    assert not Grant.objects.filter(user=personas.alice, status="active").exists()
    assert "nothing to take back" in client.get("/consent/revoke-all").content.decode()


def test_pending_rows_are_answered_not_revoked(personas, server):
    request = open_request(personas, server, ["conversation:read"])
    grant = request.grants.get()
    cards = signed_in(personas.alice).get("/consent/servers/").content.decode()
    row = cards[cards.index(f'id="grant-{grant.id}"') :].split("</tr>")[0]
    assert "Revoke" not in row
    assert f'href="/consent/{request.id}/"' in row and ">Answer<" in row


def test_an_expired_grant_never_shows_as_allowed_or_counts_as_live(personas, server):
    """The sweep closes expired grants only now and then; pages must not wait for it."""
    from datetime import timedelta

    from django.utils import timezone

    allow_all(open_request(personas, server, ["conversation:read"]))
    Grant.objects.filter(user=personas.alice).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    home = signed_in(personas.alice).get("/").content.decode()
    assert 'data-status="expired"' in home and 'data-status="active"' not in home
    cards = signed_in(personas.alice).get("/consent/servers/").content.decode()
    assert 'data-status="expired"' in cards and ">Revoke<" not in cards
    overview = signed_in(personas.admin).get("/staff/").content.decode()
    figure = overview[: overview.index("active consents")].rsplit('class="figure">', 1)[1]
    assert figure.split("<")[0] == "0"


def test_staff_see_pending_requests_and_a_users_history(personas, server):
    request = open_request(personas, server, ["conversation:read"])
    for staff in (personas.admin, personas.auditor):
        client = signed_in(staff)
        assert request.id in client.get("/staff/consents/").content.decode()
        page = client.get(f"/staff/consents/users/{personas.alice.id}/").content.decode()
        assert "consent.requested" in page and "Notes" in page
    assert signed_in(personas.alice).get("/staff/consents/").status_code == 403
    assert (
        signed_in(personas.admin).get(f"/staff/consents/users/{personas.charlie.id}/").status_code
        == 404
    )


def test_admins_decide_on_behalf_and_auditors_only_look(personas, server):
    request = open_request(personas, server, ["conversation:read"])
    grant = request.grants.get()
    form = {f"decision-{grant.id}": "allow", "remember": "1d"}
    assert (
        signed_in(personas.auditor)
        .post(f"/staff/consents/requests/{request.id}/decide", form)
        .status_code
        == 403
    )
    assert (
        "Auditors can look but not decide"
        in signed_in(personas.auditor)
        .get(f"/staff/consents/requests/{request.id}/")
        .content.decode()
    )
    signed_in(personas.admin).post(f"/staff/consents/requests/{request.id}/decide", form)
    grant.refresh_from_db()
    assert grant.status == "active" and grant.channel == "staff"
    assert "by staff" in signed_in(personas.alice).get("/consent/servers/").content.decode()


def test_admins_edit_the_policy_and_auditors_cannot(personas, server):
    form = {
        "server_list_mode": "deny",
        "listed_server_ids": [server.id],
        "required_hooks_trusted_only": "on",
        "max_chars_per_message": "5000",
        "max_chars_per_server": "1000",
        "conversation_budget_ms": "400",
    }
    assert signed_in(personas.auditor).post("/staff/policy/save", form).status_code == 403
    assert signed_in(personas.admin).post("/staff/policy/save", form).status_code == 302
    policy = HostPolicy.objects.get(host=personas.acme)
    assert policy.listed_server_ids == [server.id] and policy.conversation_budget_ms == 400
    bad = signed_in(personas.admin).post(
        "/staff/policy/save", {**form, "conversation_budget_ms": "5"}
    )
    assert bad.status_code == 422
    page = signed_in(personas.auditor).get("/staff/policy/").content.decode()
    assert "Only admins can change the policy." in page
    signed_in(personas.admin).post(f"/staff/policy/servers/{server.id}/priority", {"priority": "7"})
    server.refresh_from_db()
    assert server.priority == 7


def test_staff_find_a_user_by_external_id_within_their_host(personas):
    client = signed_in(personas.admin)
    found = client.get("/staff/consents/users/", {"external_id": "alice"})
    assert found.status_code == 302 and found["Location"].endswith(f"/{personas.alice.id}/")
    assert client.get("/staff/consents/users/", {"external_id": "charlie"}).status_code == 404


def test_the_consent_record_lists_every_step_with_what_was_shown(personas, server):
    from consent.services import grant_revoke
    from switchboard.actors import Actor

    request = open_request(personas, server, ["hooks"])
    allow_all(request)
    grant = Grant.objects.get(user=personas.alice, server=server, scope="hooks")
    grant_revoke(grant=grant, actor=Actor.for_user(personas.alice))
    staff = Client()
    staff.force_login(personas.auditor)
    page = staff.get(f"/staff/consents/users/{personas.alice.id}/evidence")
    assert page.status_code == 200
    html = page.content.decode()
    steps = html.count('class="evidence-step"')
    assert steps >= 3  # asked, allowed, taken back
    assert "The user was asked" in html and "The user allowed it" in html
    assert "It was taken back" in html
    assert grant.approved_hash in html  # the hash of what was approved
    assert "What the page showed" in html and server.name in html
    # Each step names its place in the transparency log, and the record
    # carries the signed checkpoint that covers it (docs/transparency.md).
    from switchboard.models import AuditEntry
    from switchboard.services.ledger_checkpoints import checkpoint_issue

    assert "not yet covered by a signed checkpoint" in html
    checkpoint = checkpoint_issue(personas.acme.id)
    html = staff.get(f"/staff/consents/users/{personas.alice.id}/evidence").content.decode()
    allowed = AuditEntry.objects.filter(
        user_id=personas.alice.id, kind__startswith="consent.", subject_type="grant"
    ).first()
    assert allowed is not None and allowed.content_hash in html
    assert f"covered by the checkpoint of tree size {checkpoint.tree_size}" in html
    assert checkpoint.note.splitlines()[-1] in html  # the signature line
    # Another host's staff cannot read it.
    from switchboard.services.users import staff_create
    from tests.factories import SYSTEM

    other = Client()
    other.force_login(
        staff_create(host=personas.bravo, email="admin@bravo.test", role="admin", actor=SYSTEM)
    )
    assert other.get(f"/staff/consents/users/{personas.alice.id}/evidence").status_code == 404
    # Users do not open staff pages.
    user = Client()
    user.force_login(personas.alice)
    assert user.get(f"/staff/consents/users/{personas.alice.id}/evidence").status_code in (302, 403)
