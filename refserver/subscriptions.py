"""Webhook subscriptions: identity, validation, TTL and the registry.

Per SEP-3415 §"Subscription identity" a subscription is keyed by (principal, delivery.url, name,
canonical arguments); the id is derived from that key so it is stable across
refreshes and server restarts, and it is never accepted as input. The
registry also remembers which (principal, url) pairs have passed the
verification challenge: SEP-3415 §"Webhook security" verifies an endpoint once, not per
subscription.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import ipaddress
import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal
from urllib.parse import urlsplit

from refserver.config import Config
from refserver.eventlog import iso

Status = Literal["active", "suspended", "gone", "expired"]


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def subscription_id(principal: str, url: str, name: str, arguments: dict[str, Any]) -> str:
    key = canonical_json([principal, url, name, canonical_json(arguments)])
    return "sub_" + hashlib.sha256(key.encode()).hexdigest()[:24]


def secret_fingerprint(secret: str) -> str:
    """A non-reversible tag so tests can tell secrets apart without seeing them."""
    return hashlib.sha256(secret.encode()).hexdigest()[:12]


def validate_callback_url(url: str, *, allow_http_loopback: bool) -> None:
    """Raise ValueError unless `url` is an acceptable delivery.url.

    https only; plain http is tolerated for loopback hosts when the server
    runs with --allow-http-callbacks, so tests can receive without TLS.
    """
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise ValueError(f"malformed delivery.url: {exc}") from exc
    if not parts.hostname:
        raise ValueError("delivery.url must be an absolute URL with a host")
    if parts.scheme == "https":
        return
    if parts.scheme == "http" and allow_http_loopback and _is_loopback(parts.hostname):
        return
    if parts.scheme == "http":
        raise ValueError("delivery.url must use https")
    raise ValueError(f"unsupported delivery.url scheme {parts.scheme!r}")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def validate_secret(secret: Any) -> None:
    """Raise ValueError unless `secret` is `whsec_` + base64 of 24..64 bytes."""
    if not isinstance(secret, str) or not secret.startswith("whsec_"):
        raise ValueError("delivery.secret must start with 'whsec_'")
    encoded = secret[len("whsec_") :]
    try:
        raw = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError("delivery.secret is not valid base64 after 'whsec_'") from exc
    if not 24 <= len(raw) <= 64:
        raise ValueError(f"delivery.secret must encode 24..64 bytes, got {len(raw)}")


def grant_expiry(config: Config, *, ttl_given: bool, ttl_ms: int | None) -> datetime | None:
    """The granted refreshBefore: absent -> default, null -> none, else clamped."""
    if ttl_given and ttl_ms is None:
        if config.allow_no_expiry:
            return None
        ttl_ms = config.max_ttl_ms
    elif not ttl_given or ttl_ms is None:
        ttl_ms = config.default_ttl_ms
    ttl_ms = min(max(ttl_ms, config.min_ttl_ms), config.max_ttl_ms)
    return datetime.now(UTC) + timedelta(milliseconds=ttl_ms)


@dataclass
class Subscription:
    id: str
    principal: str
    url: str
    name: str
    arguments: dict[str, Any]
    secret: str
    refresh_before: datetime | None
    watermark: int
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    old_secret: str | None = None
    old_secret_until: float | None = None
    status: Status = "active"
    last_delivery_at: datetime | None = None
    last_error: str | None = None
    failed_since: datetime | None = None
    consecutive_failures: int = 0
    refreshes: int = 0
    inflight: bool = False
    queue: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)
    worker: asyncio.Task[None] | None = None

    def expired(self) -> bool:
        return self.refresh_before is not None and datetime.now(UTC) >= self.refresh_before

    def signing_secrets(self) -> list[str]:
        """Current secret, plus the previous one during the rotation grace."""
        secrets = [self.secret]
        if self.old_secret and self.old_secret_until and time.time() < self.old_secret_until:
            secrets.append(self.old_secret)
        return secrets

    def delivery_status(self) -> dict[str, Any]:
        status: dict[str, Any] = {
            "active": self.status == "active",
            "lastDeliveryAt": iso(self.last_delivery_at) if self.last_delivery_at else None,
            "lastError": self.last_error,
        }
        if self.failed_since:
            status["failedSince"] = iso(self.failed_since)
        return status

    def describe(self) -> dict[str, Any]:
        """The control surface's view (never the secret itself)."""
        return {
            "id": self.id,
            "principal": self.principal,
            "url": self.url,
            "name": self.name,
            "arguments": self.arguments,
            "status": "expired" if self.expired() else self.status,
            "refreshBefore": iso(self.refresh_before) if self.refresh_before else None,
            "cursor": str(self.watermark),
            "createdAt": iso(self.created_at),
            "refreshes": self.refreshes,
            "secretFingerprint": secret_fingerprint(self.secret),
            "oldSecretFingerprint": secret_fingerprint(self.old_secret)
            if self.old_secret
            else None,
            "signingSecrets": len(self.signing_secrets()),
            "queued": self.queue.qsize(),
            "deliveryStatus": self.delivery_status(),
        }


class SubscriptionRegistry:
    def __init__(self) -> None:
        self.by_id: dict[str, Subscription] = {}
        self.verified: set[tuple[str, str]] = set()
        self._locks: dict[str, asyncio.Lock] = {}

    def lock(self, sub_id: str) -> asyncio.Lock:
        """Serialize subscribe/unsubscribe per key, so a refresh racing a create is safe."""
        return self._locks.setdefault(sub_id, asyncio.Lock())

    def live(self, sub_id: str) -> Subscription | None:
        sub = self.by_id.get(sub_id)
        if sub is not None and sub.expired():
            return None
        return sub

    def for_type(self, name: str) -> list[Subscription]:
        return [s for s in self.by_id.values() if s.name == name and not s.expired()]

    def count_for(self, principal: str) -> int:
        return sum(1 for s in self.by_id.values() if s.principal == principal and not s.expired())

    def pop(self, sub_id: str) -> Subscription | None:
        return self.by_id.pop(sub_id, None)
