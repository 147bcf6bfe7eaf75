"""Encryption at rest for secrets we must read back (server credentials,
webhook secrets). Keys come from FIELD_ENCRYPTION_KEYS, newest first:
MultiFernet encrypts with the first and decrypts with any, so rotation is
"prepend a key, re-save at leisure, drop the old key"."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import models


@cache
def _fernet() -> MultiFernet:
    try:
        return MultiFernet([Fernet(key.encode()) for key in settings.FIELD_ENCRYPTION_KEYS])
    except ValueError as exc:
        raise ImproperlyConfigured(
            f"FIELD_ENCRYPTION_KEYS holds an invalid Fernet key: {exc}"
        ) from None


def encrypt_text(plaintext: str) -> str:
    return _fernet().encrypt(plaintext.encode()).decode()


def decrypt_text(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken:
        raise ImproperlyConfigured(
            "an encrypted value cannot be read with any key in FIELD_ENCRYPTION_KEYS"
        ) from None


def reencrypt_text(token: str) -> str:
    """Re-encrypt under the newest key (for key rotation)."""
    return _fernet().rotate(token.encode()).decode()


class EncryptedJSONField(models.TextField):
    """A JSON value stored as a Fernet token. Never shown in admin or logs."""

    # django-stubs reads these to type the attribute: it holds JSON, not text.
    _pyi_private_set_type: Any
    _pyi_private_get_type: Any

    def from_db_value(self, value, expression, connection) -> Any:
        if value is None:
            return None
        return json.loads(decrypt_text(value))

    def to_python(self, value) -> Any:
        return value

    def get_prep_value(self, value) -> str | None:
        if value is None:
            return None
        return encrypt_text(json.dumps(value, sort_keys=True))
