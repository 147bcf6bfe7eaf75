from datetime import timedelta

import pytest
from django.utils import timezone

from switchboard.models import AuditEntry, LoginLink, User


def test_put_creates_then_updates_a_user(personas):
    api = personas.acme_api
    created = api.put("/users/dave", {"display_name": "Dave", "email": "dave@acme.test"})
    assert created.status_code == 201
    assert created.json()["external_id"] == "dave"
    updated = api.put("/users/dave", {"display_name": "David"})
    assert updated.status_code == 200
    assert updated.json()["display_name"] == "David"
    assert updated.json()["email"] == "dave@acme.test"
    assert api.get("/users/dave").json()["display_name"] == "David"


@pytest.mark.parametrize("email", ["not-an-email", "a@", "two@at@acme.test", " dave@acme.test"])
def test_a_bad_email_is_refused_naming_the_field_and_nothing_is_stored(personas, email):
    api = personas.acme_api
    api.put("/users/dave", {"display_name": "Dave", "email": "dave@acme.test"})
    response = api.put("/users/dave", {"display_name": "Changed", "email": email})
    assert response.status_code == 422, response.json()
    assert response.json()["error"]["field"] == "email"
    kept = api.get("/users/dave").json()
    assert kept["email"] == "dave@acme.test" and kept["display_name"] == "Dave"
    assert api.put("/users/erin", {"email": email}).status_code == 422
    assert api.get("/users/erin").status_code == 404


def test_an_empty_email_clears_it(personas):
    api = personas.acme_api
    api.put("/users/dave", {"email": "dave@acme.test"})
    assert api.put("/users/dave", {"email": ""}).json()["email"] == ""


@pytest.mark.parametrize("external_id", ["x" * 201, "bad%07char"])
def test_bad_external_ids_are_refused_naming_the_field(personas, external_id):
    response = personas.acme_api.put(f"/users/{external_id}", {})
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "external_id"


def test_wrong_types_get_422_naming_the_field_and_malformed_json_gets_400(personas):
    api = personas.acme_api
    response = api.put("/users/dave", {"display_name": ["not", "a", "string"]})
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "display_name"
    raw = api.client.put("/api/v1/users/dave", data="{not json", content_type="application/json")
    assert raw.status_code == 400
    assert raw.json()["error"]["code"] == "malformed"
    assert not User.objects.filter(external_id="dave").exists()


def test_unknown_user_is_404(personas):
    response = personas.acme_api.get("/users/nobody")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "user_not_found"


def test_login_link_is_one_time_and_short_lived(personas, client):
    response = personas.acme_api.post("/users/alice/login-links", {"next": "/activity/"})
    assert response.status_code == 201
    body = response.json()
    path = body["url"].split("://", 1)[1].split("/", 1)[1]
    first = client.get(f"/{path}")
    assert first.status_code == 302 and first["Location"] == "/activity/"
    assert client.get("/activity/").status_code == 200
    second = client.get(f"/{path}")
    assert second.status_code == 410
    assert "already been used" in second.content.decode()


def test_an_expired_login_link_shows_a_clear_page(personas, client):
    response = personas.acme_api.post("/users/alice/login-links")
    path = "/" + response.json()["url"].split("/", 3)[3]
    LoginLink.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    page = client.get(path)
    assert page.status_code == 410
    assert "expired" in page.content.decode()


def test_login_link_expiry_is_at_most_ten_minutes(personas):
    body = personas.acme_api.post("/users/alice/login-links").json()
    from datetime import datetime

    expires = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert expires - timezone.now() <= timedelta(minutes=10)


def test_login_link_next_must_stay_on_the_console(personas):
    response = personas.acme_api.post("/users/alice/login-links", {"next": "https://evil.test/"})
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "next"


def test_delete_user_revokes_everything_and_keeps_a_tombstone(personas):
    from consent.models import GrantStatus
    from consent.services import grant_approve, grant_request
    from tests.factories import SYSTEM, make_server

    server = make_server(personas.acme)
    grant = grant_request(
        user=personas.alice, server=server, scope="conversation:read", actor=SYSTEM
    )
    grant_approve(grant=grant, actor=SYSTEM)
    assert personas.acme_api.delete("/users/alice").status_code == 204
    grant.refresh_from_db()
    assert grant.status == GrantStatus.REVOKED
    assert personas.acme_api.get("/users/alice").status_code == 404
    tombstone = AuditEntry.objects.filter(kind="user.deleted").get()
    assert tombstone.user_external_id == "alice"
    assert personas.alice.display_name not in str(tombstone.detail)


def test_every_list_is_paginated(personas):
    api = personas.acme_api
    for i in range(5):
        api.put(f"/users/u{i}", {})
    first = api.get("/audit?limit=3").json()
    assert len(first["items"]) == 3 and first["next_cursor"]
    second = api.get(f"/audit?limit=3&cursor={first['next_cursor']}").json()
    assert {i["id"] for i in first["items"]}.isdisjoint({i["id"] for i in second["items"]})
    assert api.get("/audit?limit=0").status_code == 422
    assert api.get("/audit?cursor=garbage!").status_code == 400
