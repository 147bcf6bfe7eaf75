"""Optional server identity (SEP-3415 "Server identity", marked *may change*):
an ed25519 ``v1a,`` signature beside the ``v1,`` HMAC on every delivery and
challenge, with the public key published at
``/.well-known/mcp-webhook-jwks.json`` on this server's origin (one of the
two provisional locations). Off unless ``--webhook-identity``."""

from __future__ import annotations

import base64
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

WELL_KNOWN_PATH = "/.well-known/mcp-webhook-jwks.json"


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


class Identity:
    def __init__(self) -> None:
        self.key = Ed25519PrivateKey.generate()
        self.kid = "refserver-1"

    def jwks(self) -> dict[str, Any]:
        public = self.key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return {
            "keys": [
                {
                    "kty": "OKP",
                    "crv": "Ed25519",
                    "x": _b64url(public),
                    "kid": self.kid,
                    "use": "sig",
                    "alg": "EdDSA",
                }
            ]
        }

    def sign(self, *, webhook_id: str, timestamp: str, body: str, wrong: bool = False) -> str:
        """``v1a,<base64 signature>`` over ``{id}.{timestamp}.{body}``."""
        key = Ed25519PrivateKey.generate() if wrong else self.key
        signed = key.sign(f"{webhook_id}.{timestamp}.{body}".encode())
        return "v1a," + base64.b64encode(signed).decode()
