from django.test import Client

from consent.services import consent_request_create
from switchboard.services.servers import server_register
from tests.factories import SYSTEM


def test_the_home_page_lists_servers_waiting_for_a_decision(personas):
    server = server_register(
        host=personas.acme,
        name="Notes <b>server</b>",
        actor=SYSTEM,
        capabilities={"conversationEvents": {"onUserMessage": True}},
    )
    request, _ = consent_request_create(
        host=personas.acme,
        user=personas.alice,
        server=server,
        scopes=["conversation:read"],
        actor=SYSTEM,
    )
    client = Client()
    client.force_login(personas.alice, backend="django.contrib.auth.backends.ModelBackend")
    page = client.get("/").content.decode()
    assert "Waiting for your decision" in page
    assert f"/consent/{request.id}/" in page
    assert "Notes &lt;b&gt;server&lt;/b&gt;" in page
    bob = Client()
    bob.force_login(personas.bob, backend="django.contrib.auth.backends.ModelBackend")
    assert "Waiting for your decision" not in bob.get("/").content.decode()


def test_anonymous_visitors_see_how_to_sign_in(db):
    page = Client().get("/").content.decode()
    assert "sign-in link" in page
