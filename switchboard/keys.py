"""API key format: ``swb_<32 random base62 chars>_<6-char CRC32 checksum>``.

The checksum lets us reject typos and garbage before any database query
(and lets secret scanners recognise our keys); only a SHA-256 hash of the
whole key is stored.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import string
import zlib

_BASE62 = string.digits + string.ascii_letters
_RANDOM_LEN = 32
_KEY_RE = re.compile(r"^swb_([0-9A-Za-z]{32})_([0-9A-Za-z]{6})$")


def _base62(number: int, width: int) -> str:
    chars = []
    while number:
        number, rem = divmod(number, 62)
        chars.append(_BASE62[rem])
    return "".join(reversed(chars)).rjust(width, "0")


def _checksum(random_part: str) -> str:
    return _base62(zlib.crc32(random_part.encode()), 6)


def generate_api_key() -> str:
    random_part = "".join(secrets.choice(_BASE62) for _ in range(_RANDOM_LEN))
    return f"swb_{random_part}_{_checksum(random_part)}"


def is_well_formed(key: str) -> bool:
    match = _KEY_RE.match(key)
    return match is not None and secrets.compare_digest(_checksum(match.group(1)), match.group(2))


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def display_prefix(key: str) -> str:
    return key[:10]
