"""The host endpoint: where Switchboard POSTs its signed deliveries.

Each delivery is verified with ``standardwebhooks`` over the raw body before
anything reads it; a body whose signature does not verify is answered 401
and dropped. Setting the endpoint again gives a new secret while the old one
keeps signing for a while, so every secret this host was given is tried.
A delivery is stored once per ``webhook-id`` (retries carry the same id).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

PATH = "/switchboard/webhooks"
MAX_BODY = 1_000_000


class DeliveryEndpoint:
    """A small HTTP server on ``host:port`` (port 0: any free one), in a thread."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        on_delivery: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.secrets: list[str] = []
        self.deliveries: list[dict[str, Any]] = []
        self.refused = 0
        self._seen: set[str] = set()
        self._changed = threading.Condition()
        self._on_delivery = on_delivery
        self._server = ThreadingHTTPServer((host, port), _handler_for(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{PATH}"

    def start(self) -> DeliveryEndpoint:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def add_secret(self, secret: str) -> None:
        with self._changed:
            self.secrets.append(secret)

    def wait_for(self, kind: str, *, timeout: float = 30.0, **data: Any) -> dict[str, Any]:
        """The first delivery of ``kind`` whose ``data`` has these values."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for delivery in self.deliveries:
                    if delivery["type"] == kind and all(
                        delivery["data"].get(key) == value for key, value in data.items()
                    ):
                        return delivery
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {kind} delivery with {data} within {timeout}s")
                self._changed.wait(left)

    def receive(self, body: bytes, headers: dict[str, str]) -> int:
        """Verify and store one delivery; the HTTP status to answer."""
        with self._changed:
            secrets = list(self.secrets)
        delivery = None
        for secret in reversed(secrets):
            try:
                delivery = Webhook(secret).verify(body, headers)
                break
            except WebhookVerificationError:
                continue
        if delivery is None:
            with self._changed:
                self.refused += 1
            return 401
        webhook_id = {k.lower(): v for k, v in headers.items()}["webhook-id"]
        with self._changed:
            if webhook_id in self._seen:
                return 204
            self._seen.add(webhook_id)
            self.deliveries.append(delivery)
            self._changed.notify_all()
        if self._on_delivery:
            self._on_delivery(delivery)
        return 204


def _handler_for(endpoint: DeliveryEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
            length = int(self.headers.get("Content-Length") or 0)
            if self.path != PATH or length > MAX_BODY:
                self._answer(404 if self.path != PATH else 413)
                return
            body = self.rfile.read(length)
            self._answer(endpoint.receive(body, dict(self.headers.items())))

        def _answer(self, status: int) -> None:
            payload = b"" if status == 204 else json.dumps({"status": status}).encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            return  # deliveries are printed by the host, not as access lines

    return Handler
