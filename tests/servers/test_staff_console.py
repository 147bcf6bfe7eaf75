"""The admin console without the API: servers, keys and the host endpoint from
the pages, each action through the same service (and ledger) as the API,
every destructive one confirmed first; auditors look and change nothing."""

from __future__ import annotations

import pytest
from django.test import Client

from consent.models import Grant
from outbox.models import HostDelivery, HostEndpoint
from subscriptions.models import Subscription
from switchboard.models import ApiKey, AuditEntry, McpServer
from tests.consent.support import allow_all, open_request
from tests.factories import ApiClient
from tests.subscriptions.support import approve_events, make_subscription


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _register(client: Client, refserver, **form):
    data = {
        "name": "Ref",
        "url": refserver.mcp_url,
        "headers": "X-Team-Key: s3cret\n",
        "trust": "trusted",
        **form,
    }
    return client.post("/staff/servers/new/", data)


def test_an_admin_registers_a_server_with_credentials_and_sees_what_it_declares(
    personas, refserver
):
    admin = signed_in(personas.admin)
    assert 'name="url"' in admin.get("/staff/servers/new/").content.decode()
    answer = _register(admin, refserver)
    server = McpServer.objects.get(host=personas.acme, name="Ref")
    assert answer.status_code == 302 and answer["Location"] == f"/staff/servers/{server.id}/"
    assert server.status == "active" and server.trust == "trusted"
    assert server.headers == {"X-Team-Key": "s3cret"}  # stored encrypted, sent to the server
    entry = AuditEntry.objects.get(kind="server.registered", server_id=server.id)
    assert entry.actor_id == personas.admin.id
    page = admin.get(answer["Location"]).content.decode()
    assert "is registered and synced" in page
    for declared in ("build.finished", "post_tool_use", "Capabilities", "Hook declarations"):
        assert declared in page, declared
    assert "s3cret" not in page


@pytest.mark.parametrize(
    ("form", "field_error"),
    [
        ({"url": ""}, "This field is required."),
        ({"url": "not a url"}, "Enter a valid URL."),
        ({"headers": "no colon here"}, "Line 1: write “Header-Name: value”."),
        ({"name": ""}, "This field is required."),
    ],
)
def test_a_bad_registration_says_what_is_wrong_and_registers_nothing(
    personas, refserver, form, field_error
):
    answer = _register(signed_in(personas.admin), refserver, **form)
    assert answer.status_code == 422
    assert field_error in answer.content.decode()
    assert not McpServer.objects.filter(host=personas.acme).exists()


def test_resync_reads_the_declarations_again(personas, refserver):
    admin = signed_in(personas.admin)
    _register(admin, refserver)
    server = McpServer.objects.get(host=personas.acme)
    before = server.last_synced_at
    answer = admin.post(f"/staff/servers/{server.id}/resync", follow=True)
    assert "re-synced" in answer.content.decode()
    server.refresh_from_db()
    assert server.last_synced_at > before


def test_removing_a_server_asks_first_naming_what_goes_with_it(personas, refserver):
    admin = signed_in(personas.admin)
    _register(admin, refserver)
    server = McpServer.objects.get(host=personas.acme)
    allow_all(open_request(personas, server, ["conversation:read", "hooks"]))
    allow_all(open_request(personas, server, ["conversation:read"], user=personas.bob))
    approve_events(personas.alice, server, ["build.finished"])
    make_subscription(personas.alice, server, event="build.finished")

    question = admin.get(f"/staff/servers/{server.id}/remove").content.decode()
    for phrase in (
        "4 open consents of 2 users",
        "1 live event subscription",
        "hook declarations",
        "Yes, remove Ref",
    ):
        assert phrase in question, phrase
    # A post without the confirmation's own answer only asks again.
    assert admin.post(f"/staff/servers/{server.id}/remove").status_code == 200
    assert McpServer.objects.get(pk=server.pk).deleted_at is None

    done = admin.post(f"/staff/servers/{server.id}/remove", {"confirm": "yes"})
    assert done.status_code == 302 and done["Location"] == "/staff/servers/"
    assert McpServer.objects.get(pk=server.pk).deleted_at is not None
    assert not Grant.objects.filter(server=server, status="active").exists()
    assert Subscription.objects.get(server=server).status == "revoked"
    assert AuditEntry.objects.filter(kind="server.deleted", actor_id=personas.admin.id).exists()


def test_an_api_key_is_created_shown_once_and_revoked_after_confirming(personas):
    admin = signed_in(personas.admin)
    created = admin.post("/staff/keys/new", {"name": "chat backend"})
    assert created.status_code == 200 and created["Cache-Control"] == "no-store"
    key = ApiKey.objects.get(host=personas.acme, name="chat backend")
    html = created.content.decode()
    plaintext = html.split('id="new-key" class="secret" type="text" readonly value="')[1].split(
        '"'
    )[0]
    assert plaintext.startswith(key.prefix)
    assert ApiClient(plaintext).get("/users/alice").status_code == 200
    assert plaintext not in admin.get("/staff/keys/").content.decode()  # never again

    question = admin.get(f"/staff/keys/{key.id}/revoke").content.decode()
    assert "chat backend" in question and "refused from now on" in question
    admin.post(f"/staff/keys/{key.id}/revoke")  # no confirmation: nothing happens
    assert ApiClient(plaintext).get("/users/alice").status_code == 200
    admin.post(f"/staff/keys/{key.id}/revoke", {"confirm": "yes"})
    assert ApiClient(plaintext).get("/users/alice").status_code == 401
    assert AuditEntry.objects.filter(kind="api_key.revoked", subject_id=key.id).exists()
    assert admin.post("/staff/keys/new", {"name": ""}).status_code == 422


def test_a_reloaded_key_answer_makes_no_second_key(personas):
    admin = signed_in(personas.admin)
    page = admin.get("/staff/keys/").content.decode()
    once = page.split('name="once" value="')[1].split('"')[0]
    first = admin.post("/staff/keys/new", {"name": "chat backend", "once": once})
    assert first.status_code == 200 and 'id="new-key"' in first.content.decode()
    again = admin.post("/staff/keys/new", {"name": "chat backend", "once": once})  # a reload
    assert again.status_code == 409
    html = again.content.decode()
    assert "already sent" in html and 'id="new-key"' not in html
    assert ApiKey.objects.filter(host=personas.acme, name="chat backend").count() == 1
    # The page it answers with carries a fresh form: the next key can be made.
    fresh = html.split('name="once" value="')[1].split('"')[0]
    assert fresh != once
    assert admin.post("/staff/keys/new", {"name": "second", "once": fresh}).status_code == 200


def test_the_host_endpoint_is_set_and_tested_from_the_page(personas):
    admin = signed_in(personas.admin)
    set_answer = admin.post("/staff/endpoint/set", {"url": "http://127.0.0.1:9/deliveries"})
    assert set_answer.status_code == 200, set_answer.content.decode()[:500]
    endpoint = HostEndpoint.objects.get(host=personas.acme)
    assert endpoint.url == "http://127.0.0.1:9/deliveries"
    assert 'id="new-secret"' in set_answer.content.decode()
    assert 'id="new-secret"' not in admin.get("/staff/endpoint/").content.decode()  # once
    admin.post("/staff/endpoint/test")
    assert HostDelivery.objects.filter(host=personas.acme, type="ping").exists()
    bad = admin.post("/staff/endpoint/set", {"url": "ftp://nope"})
    assert bad.status_code == 422 and "Enter a valid URL." in bad.content.decode()


def test_auditors_see_the_pages_without_forms_and_every_change_is_refused(personas, refserver):
    admin = signed_in(personas.admin)
    _register(admin, refserver)
    server = McpServer.objects.get(host=personas.acme)
    key = ApiKey.objects.filter(host=personas.acme).first()
    auditor = signed_in(personas.auditor)
    for path in (
        "/staff/servers/",
        f"/staff/servers/{server.id}/",
        "/staff/keys/",
        "/staff/endpoint/",
    ):
        page = auditor.get(path)
        assert page.status_code == 200, path
        html = page.content.decode()
        for action in (
            "Register a server",
            "Re-sync",
            "Remove Ref",
            "Create a key",
            "Set the endpoint",
        ):
            assert action not in html, (path, action)
    refused = {
        "/staff/servers/new/": {"name": "X", "url": refserver.mcp_url},
        f"/staff/servers/{server.id}/resync": {},
        f"/staff/servers/{server.id}/remove": {"confirm": "yes"},
        "/staff/keys/new": {"name": "mine"},
        f"/staff/keys/{key.id}/revoke": {"confirm": "yes"},
        "/staff/endpoint/set": {"url": "http://127.0.0.1:9/x"},
    }
    for path, data in refused.items():
        answer = auditor.post(path, data)
        assert answer.status_code == 403, path
        assert "auditors can look at everything but change nothing" in answer.content.decode()
    assert McpServer.objects.get(pk=server.pk).deleted_at is None
    assert ApiKey.objects.get(pk=key.pk).revoked_at is None


def test_every_staff_page_has_the_one_staff_navigation(personas, refserver):
    admin = signed_in(personas.admin)
    _register(admin, refserver)
    server = McpServer.objects.get(host=personas.acme)
    request = open_request(personas, server, ["conversation:read"])
    pages = [
        "/staff/",
        "/staff/users/",
        "/staff/servers/",
        f"/staff/servers/{server.id}/",
        "/staff/servers/new/",
        "/staff/keys/",
        "/staff/consents/",
        f"/staff/consents/requests/{request.id}/",
        f"/staff/consents/users/{personas.alice.id}/",
        "/staff/policy/",
        "/staff/injections/",
        "/hooks/",
        "/hooks/timeline/",
        "/staff/hooks/sessions/",
        "/staff/subscriptions/",
        "/staff/endpoint/",
        "/staff/audit/",
    ]
    for path in pages:
        html = admin.get(path).content.decode()
        assert html.count('aria-label="Staff sections"') == 1, path
        assert (
            'aria-label="Consent sections"' not in html
            and 'aria-label="Hooks sections"' not in html
        )
        assert (
            'aria-current="page"' in html.split('aria-label="Staff sections"')[1].split("</nav>")[0]
        ), path


def test_admins_get_no_link_that_would_refuse_them(personas, refserver):
    """Injected text is for auditors: admins see that it is kept, not a link
    to a page that answers 403."""
    from consent.models import Injection

    admin = signed_in(personas.admin)
    _register(admin, refserver)
    server = McpServer.objects.get(host=personas.acme)
    from django.utils import timezone

    Injection.objects.create(
        created_at=timezone.now(),
        host=personas.acme,
        user=personas.alice,
        server=server,
        conversation_id="c1",
        message_id="m1",
        source="host",
        outcome="ok",
        text="secret tip",
    )
    html = admin.get("/staff/injections/").content.decode()
    assert "/staff/injections/inj" not in html and "only auditors read it" in html
    assert "secret tip" in signed_in(personas.auditor).get("/staff/injections/").content.decode()
