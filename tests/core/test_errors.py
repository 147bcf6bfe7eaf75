"""Errors as people and hosts meet them: JSON under /api/v1/ whatever the
status, the site's own pages everywhere else."""

import pytest
from django.test import Client, RequestFactory
from django.views.defaults import server_error

from tests.factories import make_server


def _json_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    return error


def test_an_unknown_api_path_is_a_json_404(personas):
    _json_error(personas.acme_api.get("/no/such/thing"), 404, "not_found")
    _json_error(Client().get("/api/v1/no/such/thing"), 404, "not_found")


def test_a_method_a_path_does_not_take_is_a_json_405(personas):
    response = personas.acme_api.delete("/hooks/supported-events")
    error = _json_error(response, 405, "method_not_allowed")
    assert "GET" in response["Allow"] and "GET" in error["message"]


def test_no_key_is_a_json_401_and_a_refusal_a_json_403(personas):
    _json_error(Client().get("/api/v1/users/alice"), 401, "unauthorized")
    server = make_server(personas.acme, "Notes")
    refused = personas.acme_api.post(
        "/conversations/c1/injections",
        {"user": "alice", "message_id": "m1", "server": server.id, "context": "x"},
    )
    _json_error(refused, 403, "no_consent")


def test_pages_have_their_own_404_in_the_site_layout(personas):
    client = Client()
    client.force_login(personas.alice)
    page = client.get("/no/such/page/")
    assert page.status_code == 404
    html = page.content.decode()
    assert "This page does not exist" in html and 'class="topbar"' in html
    assert "Authorized servers" in html  # the signed-in navigation is there


def test_a_staff_page_for_an_end_user_is_the_styled_403(personas):
    client = Client()
    client.force_login(personas.alice)
    page = client.get("/staff/")
    assert page.status_code == 403
    html = page.content.decode()
    assert "You may not open this page" in html and "signed in as Alice" in html


@pytest.mark.django_db
def test_the_500_page_renders_without_any_context():
    response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    html = response.content.decode()
    assert "Something went wrong on our side" in html and "switchboard.css" in html


# Found by Schemathesis (tests/reliability/test_api_fuzz.py) on PostgreSQL,
# which stores no NUL character and no zone offset past ±15:59: both reached
# the database and answered 500.


def test_a_nul_character_in_a_body_is_a_400_naming_where(personas):
    response = personas.acme_api.post(
        "/sessions/s/lifecycle", {"user": "alice", "event": "session\x00start"}
    )
    error = _json_error(response, 400, "malformed")
    assert error["message"].startswith("event: ")
    nested = personas.acme_api.put("/policy", {"listed_server_ids": ["a", "b\x00"]})
    assert _json_error(nested, 400, "malformed")["message"].startswith("listed_server_ids[1]: ")


def test_a_nul_character_in_a_query_is_a_400_naming_the_parameter(personas):
    error = _json_error(personas.acme_api.get("/audit?kind=x%00y"), 400, "malformed")
    assert error["message"].startswith("kind: ")


@pytest.mark.parametrize(
    "since",
    ["0203-09-21T18:31:23-17:34", "2026-01-01T00:00:00+14:01", "0001-01-01T00:00:00+01:00"],
)
def test_a_time_no_database_can_hold_is_a_422_naming_the_field(personas, since):
    response = personas.acme_api.get("/audit/verify", QUERY_STRING=f"since={since}")
    assert _json_error(response, 422, "invalid")["field"] == "since"


def test_a_body_that_is_not_json_says_why(personas):
    response = personas.acme_api.client.post(
        "/api/v1/sessions/s/lifecycle", data="{nope", content_type="application/json"
    )
    assert "not JSON" in _json_error(response, 400, "malformed")["message"]


def test_a_nul_character_in_a_path_is_a_400(personas):
    _json_error(personas.acme_api.get("/subscriptions/sub%00x"), 400, "bad_request")
    assert Client().get("/staff/subscriptions/sub%00x/").status_code == 400


def test_every_operation_that_takes_text_documents_the_nul_400(personas):
    """The NUL refusal answers 400 for any query or body text: an operation
    taking either must say so (Schemathesis found ``/audit/verify`` did not)."""
    schema = personas.acme_api.client.get("/api/v1/openapi.json").json()
    undocumented = [
        f"{method.upper()} {path}"
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if (
            "requestBody" in operation
            or any(p["in"] == "query" for p in operation.get("parameters", []))
        )
        and "400" not in operation["responses"]
    ]
    assert not undocumented, undocumented
