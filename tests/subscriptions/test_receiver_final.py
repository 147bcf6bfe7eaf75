"""The receiver as the Final extension's servers expect it (SEP-3415;
docs/events-client.md §4): the callback URL answers where it was given (servers must not follow
redirects), the receiver document lets a server skip the challenge, the
typed codes are events errors only on ``events/*`` answers, and the server
identity keys come from the server card when it names them."""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.test import Client

from subscriptions.services.common import receiver_url
from subscriptions.services.remote import already_gone, reaction_for
from switchboard.mcp import McpCallError, dialects
from switchboard.mcp.identity import card_signing_keys, webhook_keys
from switchboard.services.server_dialects import server_events_error_seen
from tests.subscriptions.support import make_event_server, make_subscription

REDIRECTS = (301, 302, 303, 307, 308)


# --- the URL and the document ---------------------------------------------------------


def test_the_callback_url_answers_where_it_was_given_even_under_https_redirects(personas, settings):
    settings.SECURE_SSL_REDIRECT = True
    server = make_event_server(personas.acme)
    sub = make_subscription(personas.alice, server)
    path = receiver_url(sub).removeprefix(settings.PUBLIC_BASE_URL)
    assert not path.endswith("/")
    client = Client()
    assert client.get("/subscriptions/").status_code == 301  # pages are redirected
    exact = client.post(path, b"{}", content_type="application/json")
    assert exact.status_code not in REDIRECTS and exact.status_code == 400  # no signature
    slashed = client.post(path + "/", b"{}", content_type="application/json")
    assert slashed.status_code == 404  # never a redirect to the other spelling
    document = client.get("/.well-known/mcp-webhook-receiver.json")
    assert document.status_code == 200


def test_the_receiver_document_lists_the_hook_prefix_with_a_short_cache_life(personas):
    answer = Client().get("/.well-known/mcp-webhook-receiver.json")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/json"
    assert answer.json() == {"receivers": ["/webhooks/mcp/"]}
    assert answer["Cache-Control"] == "public, max-age=300"
    server = make_event_server(personas.acme)
    assert "/webhooks/mcp/" in receiver_url(make_subscription(personas.alice, server))


# --- error codes -------------------------------------------------------------------------


@pytest.mark.parametrize("code", [-32023, -32024, -32025, -32026, -32027])
def test_the_typed_codes_mean_events_errors_only_on_events_answers(code):
    on_events = dialects.classify(code, dialect=dialects.SEP, method="events/subscribe")
    assert on_events not in (dialects.EventsError.OTHER, dialects.EventsError.UNEXPECTED)
    for method in ("tools/call", "initialize", "connect", "server/discover"):
        assert dialects.classify(code, dialect=dialects.SEP, method=method) == "other"
    # JSON-RPC's own codes keep their meaning everywhere; -32601 on anything
    # else says nothing about events.
    assert dialects.classify(-32602, dialect=dialects.SEP, method="tools/call") == "invalid_params"
    assert dialects.classify(-32601, dialect=dialects.SEP, method="tools/call") == "other"


def test_a_typed_code_outside_events_neither_ends_a_subscription_nor_flips_the_dialect(personas):
    forbidden_on_connect = McpCallError("mcp_error", "nope", code=-32024, method="initialize")
    reaction = reaction_for(forbidden_on_connect, running=True, dialect=dialects.SEP)
    assert reaction.outcome == "retry"
    forbidden = McpCallError("mcp_error", "nope", code=-32024, method="events/subscribe")
    assert reaction_for(forbidden, running=True, dialect=dialects.SEP).outcome == "terminated"
    gone = McpCallError("mcp_error", "x", code=-32023, method="events/unsubscribe")
    assert already_gone(gone, dialect=dialects.SEP)
    assert not already_gone(
        McpCallError("mcp_error", "x", code=-32023, method="tools/call"), dialect=dialects.SEP
    )

    server = make_event_server(personas.acme)
    server.events_dialect_detected = dialects.SEP
    server.events_dialect_confirmed = False
    server.save()
    server_events_error_seen(server=server, code=-32011, method="initialize")
    server.refresh_from_db()
    assert server.events_dialect_detected == dialects.SEP and not server.events_dialect_confirmed
    server_events_error_seen(server=server, code=-32011, method="events/subscribe")
    server.refresh_from_db()
    assert server.events_dialect_detected == dialects.CHATGPT


# --- server identity keys ----------------------------------------------------------------


def _jwk(kid: str) -> dict:
    raw = Ed25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    x = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    return {"kty": "OKP", "crv": "Ed25519", "x": x, "kid": kid}


class _Origin:
    """An MCP server's origin, over real HTTP: what it publishes at each path."""

    def __init__(self, documents: dict[str, dict]) -> None:
        self.hits: list[str] = []
        origin = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server API
                origin.hits.append(self.path)
                document = documents.get(self.path)
                raw = json.dumps(document).encode() if document is not None else b"{}"
                self.send_response(200 if document is not None else 404)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/mcp"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _xs(keys) -> set[bytes]:
    return {k.public_bytes(Encoding.Raw, PublicFormat.Raw) for k in keys}


def _raw(jwk: dict) -> bytes:
    return base64.urlsafe_b64decode(jwk["x"] + "==")


def test_signing_keys_come_from_the_server_card_when_it_names_them(db):
    in_card, in_jwks = _jwk("card-1"), _jwk("jwks-1")
    origin = _Origin(
        {
            "/.well-known/mcp/server-card.json": {
                "name": "io.example/mcp",
                "webhooks": {"signingKeys": {"keys": [in_card]}},
            },
            "/.well-known/mcp-webhook-jwks.json": {"keys": [in_jwks]},
        }
    )
    try:
        assert _xs(webhook_keys(origin.url, refresh=True)) == {_raw(in_card)}
    finally:
        origin.close()


def test_without_keys_on_a_card_the_well_known_jwks_is_read(db):
    in_jwks = _jwk("jwks-1")
    origin = _Origin(
        {
            "/.well-known/mcp/server-card.json": {"name": "io.example/mcp"},  # no webhooks
            "/.well-known/mcp-webhook-jwks.json": {"keys": [in_jwks]},
        }
    )
    try:
        assert _xs(webhook_keys(origin.url, refresh=True)) == {_raw(in_jwks)}
        assert origin.hits == [
            "/.well-known/mcp/server-card.json",
            "/.well-known/mcp-webhook-jwks.json",
        ]
    finally:
        origin.close()


def test_a_card_may_list_its_keys_bare():
    key = _jwk("k")
    assert card_signing_keys({"webhooks": {"signingKeys": [key]}}) == {"keys": [key]}
    assert card_signing_keys({"webhooks": {}}) is None
    assert card_signing_keys(None) is None
