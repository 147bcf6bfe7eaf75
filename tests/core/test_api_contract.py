"""Properties every API route must have, checked over the whole OpenAPI schema
so that routes added later are covered without anyone remembering to."""

import re

import pytest
from django.test import Client

from config.api import api


def _operations():
    schema = api.get_openapi_schema()
    for path, methods in schema["paths"].items():
        for method in methods:
            yield method, path


OPERATIONS = sorted(set(_operations()))


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_every_route_refuses_a_missing_key_with_the_contract_error(db, method, path):
    concrete = re.sub(r"\{[^}]+\}", "x", path)
    response = getattr(Client(), method)(concrete, content_type="application/json")
    assert response.status_code == 401, f"{method.upper()} {path} answered {response.status_code}"
    assert response.json()["error"]["code"] == "unauthorized"


def test_the_schema_documents_every_route_with_responses(db):
    schema = api.get_openapi_schema()
    assert len(OPERATIONS) >= 10
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            assert operation.get("responses"), f"{method} {path} documents no responses"
    assert Client().get("/api/v1/docs").status_code == 200
    assert Client().get("/api/v1/openapi.json").status_code == 200


def test_an_oversized_body_is_413_not_500(personas, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    response = personas.acme_api.put("/users/dave", {"display_name": "x" * 4096})
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"


def test_each_operation_id_is_its_views_own_name_and_unique(db):
    """The generated clients (clients/) name their calls after the operation ids:
    ``put_user`` / ``putUser``, never a module path, and never two alike."""
    schema = api.get_openapi_schema()
    ids = [op["operationId"] for methods in schema["paths"].values() for op in methods.values()]
    assert len(ids) == len(set(ids)) == len(OPERATIONS)
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", i) and "switchboard_" not in i for i in ids), ids
    assert "put_user" in ids and "list_servers" in ids
