from cryptography.fernet import Fernet
from django.db import connection

from switchboard.crypto import _fernet, decrypt_text, encrypt_text
from switchboard.models import McpServer


def test_headers_are_encrypted_at_rest(personas):
    server = McpServer.objects.create(
        host=personas.acme, name="s", headers={"Authorization": "Bearer topsecret"}
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT headers FROM switchboard_mcpserver WHERE id = %s", [server.id])
        raw = cursor.fetchone()[0]
    assert "topsecret" not in raw
    assert McpServer.objects.get(pk=server.pk).headers == {"Authorization": "Bearer topsecret"}


def test_keys_rotate_newest_first(settings):
    original = list(settings.FIELD_ENCRYPTION_KEYS)
    old_key = original[0]
    token = encrypt_text("hello")
    settings.FIELD_ENCRYPTION_KEYS = [Fernet.generate_key().decode(), old_key]
    _fernet.cache_clear()
    try:
        assert decrypt_text(token) == "hello"  # old data stays readable
        new_token = encrypt_text("hello")
        settings.FIELD_ENCRYPTION_KEYS = settings.FIELD_ENCRYPTION_KEYS[:1]
        _fernet.cache_clear()
        assert decrypt_text(new_token) == "hello"  # new data uses the new key
    finally:
        settings.FIELD_ENCRYPTION_KEYS = original
        _fernet.cache_clear()
