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


def test_use_is_recorded(personas):
    assert personas.acme_api.get("/users/alice").status_code == 200
    assert ApiKey.objects.get(host=personas.acme).last_used_at is not None
