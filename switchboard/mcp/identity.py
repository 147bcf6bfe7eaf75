"""Optional server identity for webhook deliveries (SEP-3415 "Server identity", marked *may change*).

A server MAY sign deliveries and challenges with ed25519 (``v1a,``) beside
the ``v1,`` HMAC. The public keys must come from an origin we already
authenticate, never from a delivery: the MCP server's own origin, at one of
the two provisional places — the server card's ``webhooks.signingKeys`` (a
JWK set; SEP-2127's card at ``/.well-known/mcp/server-card.json``) when the
server publishes one, else ``/.well-known/mcp-webhook-jwks.json``. Keys
are cached; a signature no cached key verifies makes us fetch once more (a
rotation publishes the new key beside the old), at most every
``_REFETCH_AFTER`` seconds. Kept small on purpose until the SEP settles where
keys live (open question 4).
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.core.cache import cache

from switchboard.mcp.netguard import BlockedTarget, check_url, httpx_transport

log = logging.getLogger(__name__)

WELL_KNOWN_PATH = "/.well-known/mcp-webhook-jwks.json"
SERVER_CARD_PATH = "/.well-known/mcp/server-card.json"
_CACHE_SECONDS = 600
_REFETCH_AFTER = 30


def _origin(server_url: str) -> str:
    parts = urlsplit(server_url)
    return f"{parts.scheme}://{parts.netloc}"


def _fetch_json(url: str) -> dict | None:
    try:
        target = check_url(url)
        with httpx.Client(
            transport=httpx_transport(target), timeout=5, follow_redirects=False, trust_env=False
        ) as client:
            response = client.get(url)
    except (BlockedTarget, httpx.HTTPError) as exc:
        log.warning("webhook keys at %s: %s", url, exc)
        return None
    if response.status_code != 200:
        log.info("webhook keys at %s: HTTP %s", url, response.status_code)
        return None
    try:
        document = response.json()
    except ValueError:
        return None
    return document if isinstance(document, dict) else None


def card_signing_keys(card: dict | None) -> dict | None:
    """A server card's ``webhooks.signingKeys`` as a JWK set (a bare list of
    keys is read as one), or None when the card publishes none."""
    webhooks = (card or {}).get("webhooks")
    keys = webhooks.get("signingKeys") if isinstance(webhooks, dict) else None
    if isinstance(keys, list):
        keys = {"keys": keys}
    if isinstance(keys, dict) and isinstance(keys.get("keys"), list):
        return keys
    return None


def _fetch(origin: str) -> dict | None:
    """The server card's keys when it has a card that names them, else the
    well-known JWKS."""
    from_card = card_signing_keys(_fetch_json(origin + SERVER_CARD_PATH))
    if from_card is not None:
        return from_card
    return _fetch_json(origin + WELL_KNOWN_PATH)


def _keys(document: dict | None) -> list[Ed25519PublicKey]:
    if not document:
        return []
    try:
        keys = jwt.PyJWKSet.from_dict(document).keys
    except jwt.PyJWKSetError:
        return []
    return [k.key for k in keys if isinstance(k.key, Ed25519PublicKey)]


def webhook_keys(server_url: str, *, refresh: bool = False) -> list[Ed25519PublicKey]:
    """The server's published ed25519 webhook keys (cached by origin)."""
    origin = _origin(server_url)
    cache_key = f"webhook-jwks:{origin}"
    if not refresh:
        cached = cache.get(cache_key)
        if cached is not None:
            return _keys(cached)
    elif not cache.add(f"webhook-jwks-refetch:{origin}", 1, _REFETCH_AFTER):
        return _keys(cache.get(cache_key))  # fetched moments ago: no storm of refetches
    document = _fetch(origin)
    cache.set(cache_key, document or {}, _CACHE_SECONDS)
    return _keys(document)
