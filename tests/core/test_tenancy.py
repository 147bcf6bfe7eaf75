"""Personas: alice and bob (users of Acme), charlie (Bravo), an Acme admin and
auditor. Every route must keep them apart."""

import pytest
from django.test import Client

from tests.factories import make_server

API_ROUTES_FOR_ALICE = [
    ("get", "/users/alice"),
    ("put", "/users/alice"),
    ("delete", "/users/alice"),
    ("post", "/users/alice/login-links"),
    ("get", "/users/alice/grants"),
]


@pytest.mark.parametrize(("method", "path"), API_ROUTES_FOR_ALICE)
def test_another_hosts_key_gets_404_for_acme_users(personas, method, path):
    response = getattr(personas.bravo_api, method)(path)
    if method == "put":
        # PUT creates a *Bravo* user named alice: it must not touch Acme's alice.
        assert response.status_code == 201
        assert personas.acme_api.get("/users/alice").json()["id"] == personas.alice.id
        return
    assert response.status_code == 404


def test_credentials_for_a_foreign_server_are_404(personas):
    acme_server = make_server(personas.acme)
    response = personas.bravo_api.put(
        f"/users/charlie/servers/{acme_server.id}/credentials", {"headers": {"a": "b"}}
    )
    assert response.status_code == 404
    assert response.json()["error"]["field"] == "server"


def test_audit_api_shows_only_the_callers_host(personas):
    bravo_items = personas.bravo_api.get("/audit").json()["items"]
    assert bravo_items and all(item["user"] in (None, "charlie") for item in bravo_items)
    acme_items = personas.acme_api.get("/audit").json()["items"]
    assert not any(item["user"] == "charlie" for item in acme_items)


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


@pytest.mark.parametrize(
    "path", ["/staff/", "/staff/users/", "/staff/audit/", "/staff/audit/export.csv"]
)
def test_end_users_cannot_open_staff_pages(personas, path):
    assert _signed_in(personas.alice).get(path).status_code == 403
    assert Client().get(path).status_code == 401


@pytest.mark.parametrize("persona", ["admin", "auditor"])
def test_staff_see_their_own_host_only(personas, persona):
    client = _signed_in(getattr(personas, persona))
    users_page = client.get("/staff/users/").content.decode()
    assert "alice" in users_page and "bob" in users_page and "charlie" not in users_page
    audit_page = client.get("/staff/audit/").content.decode()
    assert "charlie" not in audit_page


def test_a_user_sees_only_their_own_activity(personas):
    page = _signed_in(personas.alice).get("/activity/").content.decode()
    assert "User alice created" in page
    assert "User bob created" not in page and "charlie" not in page


def test_the_admin_site_is_for_superusers_only(personas):
    assert _signed_in(personas.admin).get("/admin/").status_code == 302
    assert _signed_in(personas.alice).get("/admin/").status_code == 302


def test_the_staff_user_list_links_to_each_users_consents_and_history(personas):
    page = _signed_in(personas.admin).get("/staff/users/").content.decode()
    assert f"/staff/consents/users/{personas.alice.id}/" in page
    assert f"/staff/hooks/users/{personas.alice.id}/" in page
    assert (
        _signed_in(personas.admin).get(f"/staff/consents/users/{personas.alice.id}/").status_code
        == 200
    )
    assert (
        _signed_in(personas.admin).get(f"/staff/consents/users/{personas.charlie.id}/").status_code
        == 404
    )
