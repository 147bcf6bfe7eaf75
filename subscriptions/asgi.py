"""The MCP webhook receiver at the ASGI level, in front of Django.

``WebhookReceiver`` wraps the Django ASGI application and answers
``POST /webhooks/mcp/<token>`` itself:

1. Size first (case 12: 413 over WEBHOOK_MAX_BODY_BYTES). Django's
   ASGI handler reads the whole body before any view runs, so the limit
   must be enforced here: a declared ``Content-Length`` over the limit is
   refused at once, and a chunked body is counted as it streams in and
   refused as soon as it passes the limit. (daphne itself buffers a whole
   request before calling the application; servers that stream bodies, such
   as uvicorn, let this refuse it unread.)
2. Then the request goes straight to the receiver service
   (``webhook_receive``) in one hop to a worker thread, skipping Django's
   middleware stack and URL resolution: a server-to-server endpoint needs no
   sessions, CSRF, auth or HTML security headers, and each sync middleware
   costs a thread hop per request — the dominant cost of a small request
   under ASGI (see ``bench/``). The Django view (``subscriptions.views.webhook``)
   calls the same service, for the test client and any other server setup.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
# The wrapped application is called with our scope/receive/send; its own
# annotations (Django's handler types scope as a dict) are not ours to narrow.
ASGIApp = Callable[..., Awaitable[None]]

log = logging.getLogger(__name__)

WEBHOOK_PREFIX = "/webhooks/"
# What _read_body answers after refusing a body as too large (413).
TOO_LARGE = object()
RECEIVER_PREFIX = "/webhooks/mcp/"


def _count_refused() -> None:
    """A delivery refused before the receiver's service saw it."""
    from switchboard import metrics

    metrics.webhook_receptions.labels(outcome="refused").inc()


async def _respond(
    send: Send, status: int, body: dict | None, headers: dict[str, str] | None = None
) -> None:
    raw = json.dumps(body).encode() if body is not None else b""
    head = [(b"content-length", str(len(raw)).encode())]
    if body is not None:
        head.append((b"content-type", b"application/json"))
    for name, value in (headers or {}).items():
        head.append((name.lower().encode("latin-1"), str(value).encode("latin-1")))
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": raw})


async def _refuse(send: Send, status: int, code: str, message: str) -> None:
    await _respond(
        send,
        status,
        {"error": {"code": code, "message": message}},
        {"connection": "close"},
    )


class WebhookReceiver:
    def __init__(self, app: ASGIApp, *, limit: int | None = None):
        self.app = app
        self._limit = limit
        self._service: Callable[..., Awaitable[Any]] | None = None

    @property
    def limit(self) -> int:
        if self._limit is None:
            from django.conf import settings

            self._limit = int(settings.WEBHOOK_MAX_BODY_BYTES)
        return self._limit

    @property
    def service(self) -> Callable[..., Awaitable[Any]]:
        if self._service is None:
            from subscriptions.views import receive_in_worker_thread

            self._service = receive_in_worker_thread
        return self._service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith(WEBHOOK_PREFIX):
            await self.app(scope, receive, send)
            return
        token = path[len(RECEIVER_PREFIX) :] if path.startswith(RECEIVER_PREFIX) else None
        if token is not None and scope["method"] != "POST":
            await _respond(send, 405, None, {"allow": "POST"})
            return
        body = await self._read_body(scope, receive, send)
        if body is TOO_LARGE:
            if token:
                await self._flag_too_large(token, scope)
            return
        if not isinstance(body, bytes):
            return
        if token is None:  # another webhook path: Django handles it, with the body
            await self.app(scope, _replay(body, receive), send)
            return
        if not token or "/" in token:
            _count_refused()
            await _refuse(send, 404, "unknown_receiver", "no such receiver")
            return
        headers = {
            name.decode("latin-1").lower(): value.decode("latin-1")
            for name, value in scope.get("headers", [])
        }
        answer = await self.service(token=token, headers=headers, body=body)
        await _respond(send, answer.status, answer.body, answer.headers)
        if answer.page_updates:  # after the answer: the server is not kept waiting
            from subscriptions.services.receiver import page_updates_send

            await page_updates_send(answer.page_updates)

    async def _flag_too_large(self, token: str, scope: Scope) -> None:
        """After the 413 is answered: the server will not send that event
        again, so the host hears that one may be missing (SEP-3415 §"Webhook security")."""
        from asgiref.sync import sync_to_async

        from subscriptions.services.receiver import oversize_refused

        _count_refused()
        headers = dict(scope.get("headers", []))
        webhook_id = headers.get(b"webhook-id", b"").decode("latin-1")[:200]
        try:
            await sync_to_async(oversize_refused, thread_sensitive=False)(
                token=token, webhook_id=webhook_id
            )
        except Exception:  # the answer is sent; a failed notice must not break the server
            log.exception("flagging an oversized delivery failed")

    async def _read_body(self, scope: Scope, receive: Receive, send: Send) -> bytes | object | None:
        """The whole body; TOO_LARGE after answering 413; None after a 400 (or
        on disconnect)."""
        limit = self.limit
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                if not value.isdigit():
                    await _refuse(send, 400, "malformed_header", "invalid Content-Length")
                    return None
                if int(value) > limit:
                    await _refuse(send, 413, "too_large", f"the body is over {limit} bytes")
                    return TOO_LARGE
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _refuse(send, 413, "too_large", f"the body is over {limit} bytes")
                return TOO_LARGE
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
