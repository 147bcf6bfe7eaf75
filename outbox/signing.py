"""Secrets, receiver tokens and Standard Webhooks signatures, both directions.

Inbound (servers → ``/webhooks/mcp/<token>``): ``inbound_headers`` checks the
headers and freshness (400s), ``signature_matches`` checks the signature with
the ``standardwebhooks`` library over the raw bytes (401), and
``identity_matches`` an optional ed25519 ``v1a`` one (server identity). Outbound (console →
host endpoint): ``sign_outbound`` signs with every currently valid secret, so
the ``standardwebhooks`` and ``svix`` verifiers accept it during rotation too.
"""

from __future__ import annotations

import base64
import binascii
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32  # docs/conformance.md case 22; SEP-3415 allows 24–64
TOKEN_BYTES = 32
_SIGNATURE_BYTES = 32  # HMAC-SHA256
_IDENTITY_BYTES = 64  # ed25519


def webhook_secret_new() -> str:
    """A fresh ``whsec_`` secret from the OS CSPRNG. Never logged, never returned by the API."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def receiver_token_new() -> str:
    """The unguessable path token of one receiver URL (256 bits)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


class Rejected(Exception):
    """A delivery we refuse; ``status`` is the HTTP answer (docs/events-client.md §4's table)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(frozen=True)
class InboundHeaders:
    webhook_id: str
    timestamp: int
    # Only well-formed ``v1,<base64 of 32 bytes>`` entries; others are ignored.
    signatures: tuple[str, ...]
    subscription_id: str
    # Well-formed ``v1a,<base64 of 64 bytes>`` entries (ed25519 server identity).
    identity_signatures: tuple[bytes, ...] = ()


def _single(headers: Mapping[str, str], name: str) -> str:
    value = headers.get(name)
    if value is None:
        raise Rejected(400, "missing_header", f"the {name} header is required")
    value = value.strip()
    if not value or len(value) > 1000:
        raise Rejected(400, "malformed_header", f"the {name} header is malformed")
    return value


def _v1_entries(raw: str) -> tuple[str, ...]:
    """The ``v1,`` entries that can possibly match; ``v1a,`` (asymmetric) and
    garbage are dropped here, so one bad entry never hides a good one."""
    kept = []
    for entry in raw.split(" "):
        version, _, signature = entry.partition(",")
        if version != "v1" or not signature:
            continue
        try:
            if len(base64.b64decode(signature, validate=True)) != _SIGNATURE_BYTES:
                continue
        except (binascii.Error, ValueError):
            continue
        kept.append(entry)
    return tuple(kept)


def _v1a_entries(raw: str) -> tuple[bytes, ...]:
    kept = []
    for entry in raw.split(" "):
        version, _, signature = entry.partition(",")
        if version != "v1a" or not signature:
            continue
        try:
            decoded = base64.b64decode(signature, validate=True)
        except (binascii.Error, ValueError):
            continue
        if len(decoded) == _IDENTITY_BYTES:
            kept.append(decoded)
    return tuple(kept)


def identity_matches(body: bytes, parsed: InboundHeaders, keys: list[Ed25519PublicKey]) -> bool:
    """Whether any ``v1a`` entry is an ed25519 signature by one of ``keys``
    over ``{webhook-id}.{timestamp}.{body}`` (``cryptography`` verifies)."""
    message = f"{parsed.webhook_id}.{parsed.timestamp}.".encode() + body
    for signature in parsed.identity_signatures:
        for key in keys:
            try:
                key.verify(signature, message)
                return True
            except InvalidSignature:
                continue
    return False


def inbound_headers(
    headers: Mapping[str, str], *, tolerance: float, now: float | None = None
) -> InboundHeaders:
    """Parse and check the delivery headers; raise ``Rejected`` (400) when they
    are missing, malformed or outside the freshness window (either side)."""
    webhook_id = _single(headers, "webhook-id")
    raw_timestamp = _single(headers, "webhook-timestamp")
    if "webhook-signature" not in headers and "x-mcp-signature" in headers:
        # A pre-Standard-Webhooks signature on a current subscription: refuse
        # it as unsigned rather than fall back (downgrade guard, docs/conformance.md case 21).
        raise Rejected(401, "legacy_signature", "legacy signatures are not accepted")
    raw_signature = _single(headers, "webhook-signature")
    subscription_id = _single(headers, "x-mcp-subscription-id")
    if not raw_timestamp.isdigit() or len(raw_timestamp) > 12:
        raise Rejected(400, "malformed_header", "webhook-timestamp must be Unix seconds")
    timestamp = int(raw_timestamp)
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance:
        raise Rejected(400, "stale_timestamp", "webhook-timestamp is outside the accepted window")
    return InboundHeaders(
        webhook_id=webhook_id,
        timestamp=timestamp,
        signatures=_v1_entries(raw_signature),
        subscription_id=subscription_id,
        identity_signatures=_v1a_entries(raw_signature),
    )


def signature_matches(body: bytes, parsed: InboundHeaders, secrets_: list[str]) -> bool:
    """Whether any ``v1`` entry matches any of ``secrets_`` (constant-time,
    by the ``standardwebhooks`` library, over the exact received bytes)."""
    if not parsed.signatures:
        return False
    try:
        data = body.decode()
    except UnicodeDecodeError:
        raise Rejected(400, "malformed_body", "the body is not UTF-8 JSON") from None
    headers = {
        "webhook-id": parsed.webhook_id,
        "webhook-timestamp": str(parsed.timestamp),
        "webhook-signature": " ".join(parsed.signatures),
    }
    for secret in secrets_:
        try:
            Webhook(secret).verify(data, headers, json_parse=False)
            return True
        except WebhookVerificationError:
            continue
    return False


def sign_outbound(*, webhook_id: str, body: str, secrets_: list[str]) -> dict[str, str]:
    """Standard Webhooks headers for one attempt (the timestamp is regenerated
    on every attempt; the id is not)."""
    moment = datetime.now(UTC)
    signature = " ".join(Webhook(secret).sign(webhook_id, moment, body) for secret in secrets_)
    return {
        "webhook-id": webhook_id,
        "webhook-timestamp": str(int(moment.timestamp())),
        "webhook-signature": signature,
        "content-type": "application/json",
    }
