from datetime import datetime

from celery import current_app
from django.db import connection
from django.test.utils import CaptureQueriesContext

from switchboard.keys import generate_api_key, is_well_formed
from switchboard.models import ApiKey
from switchboard.services.hosts import api_key_revoke
from tests.factories import SYSTEM, ApiClient


def test_generated_keys_have_the_documented_shape_and_a_valid_checksum():
    keys = {generate_api_key() for _ in range(200)}
    assert len(keys) == 200
    for key in keys:
        assert key.startswith("swb_") and is_well_formed(key)


def test_a_typo_breaks_the_checksum():
    key = generate_api_key()
    typo = key[:10] + ("A" if key[10] != "A" else "B") + key[11:]
    assert not is_well_formed(typo)


def test_only_a_hash_of_the_key_is_stored(personas):
    stored = ApiKey.objects.get(host=personas.acme)
    assert personas.acme_key not in (stored.hashed, stored.prefix)
    assert len(stored.hashed) == 64


def test_a_malformed_key_is_rejected_before_any_query(personas):
    client = ApiClient("swb_not-a-real-key")
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/users/alice")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert len(queries) == 0


def test_missing_unknown_and_revoked_keys_get_401_and_learn_nothing(personas, client):
    assert client.get("/api/v1/users/alice").status_code == 401
    assert ApiClient(generate_api_key()).get("/users/alice").status_code == 401
    api_key_revoke(key=ApiKey.objects.get(host=personas.acme), actor=SYSTEM)
    response = personas.acme_api.get("/users/alice")
    assert response.status_code == 401
    assert "alice" not in response.content.decode()


def test_use_is_recorded_by_a_worker_once_per_window(
    personas, settings, tasks_sent, django_capture_on_commit_callbacks
):
    """ARCHITECTURE.md, *The hot path*: authentication is one query; the last-used time is written
    by a worker, asked at most once per key per resolution window."""
    settings.API_KEY_LAST_USED_RESOLUTION = 60
    key = ApiKey.objects.get(host=personas.acme)
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(3):
            assert personas.acme_api.get("/users/alice").status_code == 200
    assert [(name, args[0]) for name, args, _ in tasks_sent] == [
        ("switchboard.api_key_used", key.pk)
    ]
    key.refresh_from_db()
    assert key.last_used_at is None  # nothing written on the request path

    current_app.loader.import_default_modules()
    name, args, _ = tasks_sent[0]
    current_app.tasks[name].run(*args)
    key.refresh_from_db()
    assert key.last_used_at == datetime.fromisoformat(args[1])


def test_an_authenticated_call_costs_one_query_for_the_key(personas, settings):
    """The budget (ARCHITECTURE.md, *The hot path*): auth ≤ 1 query. ``GET /users/{id}`` adds the
    user's row: two in all."""
    settings.API_KEY_LAST_USED_RESOLUTION = 60
    personas.acme_api.get("/users/alice")
    with CaptureQueriesContext(connection) as queries:
        assert personas.acme_api.get("/users/alice").status_code == 200
    tables = [q["sql"].split(" FROM ", 1)[1].split()[0] for q in queries.captured_queries]
    assert tables == ['"switchboard_apikey"', '"switchboard_user"'], queries.captured_queries
