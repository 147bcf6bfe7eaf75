"""Signed webhook delivery: the verification challenge, events and envelopes.

Every POST is signed with the `standardwebhooks` library so an off-the-shelf
verifier accepts it unchanged (SEP-3415 §"Webhook security"). Each subscription has one worker
task draining a queue, so deliveries to one receiver are sequential and a
retry delays later events (simple to reason about in tests; the spec allows
either order). Retries regenerate `webhook-timestamp` but keep `webhook-id`.

Signing can be deliberately broken per delivery (`signing` on
`POST /control/emit`) so a receiver's rejection paths can be tested against
a real sender.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import ssl
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import httpx
from standardwebhooks import Webhook

from refserver import dialect
from refserver.identity import Identity
from refserver.subscriptions import Subscription

logger = logging.getLogger(__name__)

Kind = Literal["event", "verification", "gap", "terminated"]
SigningMode = Literal[
    "valid",
    "bad_signature",
    "stale_timestamp",
    "missing_signature",
    "old_secret_only",
    "bad_identity",
]
SIGNING_MODES: tuple[str, ...] = (
    "valid",
    "bad_signature",
    "stale_timestamp",
    "missing_signature",
    "old_secret_only",
    "bad_identity",  # the v1a signature by a key that is not published
)


@dataclass
class Outgoing:
    kind: Kind
    webhook_id: str
    body: dict[str, Any]
    seq: int | None = None
    signing: SigningMode = "valid"


def envelope_id(kind: str) -> str:
    return f"msg_{kind}_{secrets.token_hex(8)}"


class CallbackFailure(Exception):
    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(detail or reason)
        self.reason = reason


def classify_exception(exc: BaseException) -> str:
    """Map a transport failure to a deliveryStatus.lastError category."""
    if isinstance(exc, httpx.TimeoutException):
        return "timeout"
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ssl.SSLError):
            return "tls_error"
        cause = cause.__cause__ or cause.__context__
    if "ssl" in str(exc).lower() or "certificate" in str(exc).lower():
        return "tls_error"
    return "connection_refused"


def classify_status(status: int) -> str | None:
    if 200 <= status < 300:
        return None
    return "http_5xx" if status >= 500 else "http_4xx"


def sign_headers(
    *,
    webhook_id: str,
    body: str,
    secrets_: list[str],
    subscription_id: str,
    signing: SigningMode = "valid",
    identity: Identity | None = None,
) -> dict[str, str]:
    moment = datetime.now(UTC)
    if signing == "stale_timestamp":
        moment -= timedelta(minutes=10)
    if signing == "bad_signature":
        keys = ["whsec_" + "QkFEQkFEQkFEQkFEQkFEQkFEQkFEQkFEQkFEQkFE"]
    elif signing == "old_secret_only" and len(secrets_) > 1:
        keys = secrets_[1:]
    else:
        keys = secrets_
    headers = {
        "content-type": "application/json",
        "webhook-id": webhook_id,
        "webhook-timestamp": str(int(moment.timestamp())),
        "x-mcp-subscription-id": subscription_id,
        "user-agent": "refserver/1",
    }
    if signing != "missing_signature":
        signatures = [Webhook(k).sign(webhook_id, moment, body) for k in keys]
        if identity is not None:
            signatures.append(
                identity.sign(
                    webhook_id=webhook_id,
                    timestamp=headers["webhook-timestamp"],
                    body=body,
                    wrong=signing == "bad_identity",
                )
            )
        headers["webhook-signature"] = " ".join(signatures)
    return headers


class DeliveryManager:
    """Owns the HTTP client and the per-subscription workers."""

    def __init__(self, state: Any) -> None:
        self.state = state
        self.client: httpx.AsyncClient | None = None

    async def start(self) -> None:
        self.client = httpx.AsyncClient(follow_redirects=False)

    async def stop(self) -> None:
        for sub in list(self.state.subscriptions.by_id.values()):
            self.stop_worker(sub)
        if self.client is not None:
            await self.client.aclose()
            self.client = None

    def _client(self) -> httpx.AsyncClient:
        if self.client is None:  # lazily, for use outside the app lifespan
            self.client = httpx.AsyncClient(follow_redirects=False)
        return self.client

    async def post(
        self, sub_id: str, url: str, item: Outgoing, secrets_: list[str], attempt: int
    ) -> tuple[int | None, str | None, str]:
        """One signed POST. Returns (status, error category, response text)."""
        body = json.dumps(item.body, separators=(",", ":"), ensure_ascii=False)
        headers = sign_headers(
            webhook_id=item.webhook_id,
            body=body,
            secrets_=secrets_,
            subscription_id=sub_id,
            signing=item.signing,
            identity=self.state.identity if self.state.config.webhook_identity else None,
        )
        started = time.monotonic()
        status: int | None = None
        category: str | None
        text = ""
        try:
            response = await self._client().post(
                url,
                content=body.encode(),
                headers=headers,
                timeout=self.state.config.delivery_timeout_ms / 1000
                if item.kind != "verification"
                else self.state.config.challenge_timeout_ms / 1000,
            )
            status = response.status_code
            text = response.text[:2000]
            category = classify_status(status)
        except httpx.HTTPError as exc:
            category = classify_exception(exc)
            text = f"{type(exc).__name__}: {exc}"[:500]
        self.state.record(
            "deliveries",
            {
                "subscriptionId": sub_id,
                "url": url,
                "kind": item.kind,
                "webhookId": item.webhook_id,
                "attempt": attempt,
                "signing": item.signing,
                "signatures": len(headers.get("webhook-signature", "").split()),
                "body": item.body,
                "status": status,
                "error": category,
                "response": text,
                "durationMs": round((time.monotonic() - started) * 1000, 1),
            },
        )
        return status, category, text

    async def verify_endpoint(self, *, sub_id: str, url: str, secret: str) -> None:
        """Send the `verification` envelope and require the echoed challenge.

        Runs while `events/subscribe` is in flight, before the client knows the
        id. Raises CallbackFailure(reason) with a lastError category.
        """
        challenge = secrets.token_urlsafe(24)
        item = Outgoing(
            kind="verification",
            webhook_id=envelope_id("verification"),
            body={"type": "verification", "challenge": challenge},
        )
        status, category, text = await self.post(sub_id, url, item, [secret], attempt=1)
        if status is None:
            raise CallbackFailure(category or "connection_refused", text)
        try:
            echoed = json.loads(text).get("challenge") if text else None
        except (ValueError, AttributeError):
            echoed = None
        if category is not None or echoed != challenge:
            raise CallbackFailure(
                "challenge_failed", f"HTTP {status}, echo matched: {echoed == challenge}"
            )

    # -- workers -------------------------------------------------------------

    def ensure_worker(self, sub: Subscription) -> None:
        if sub.worker is None or sub.worker.done():
            sub.worker = asyncio.get_running_loop().create_task(
                self._run(sub), name=f"deliver:{sub.id}"
            )

    def stop_worker(self, sub: Subscription) -> None:
        if sub.worker is not None and not sub.worker.done():
            sub.worker.cancel()
        sub.worker = None

    def enqueue(self, sub: Subscription, item: Outgoing) -> None:
        sub.queue.put_nowait(item)
        self.ensure_worker(sub)

    def drain(self, sub: Subscription) -> None:
        while not sub.queue.empty():
            sub.queue.get_nowait()

    async def _run(self, sub: Subscription) -> None:
        try:
            while True:
                item: Outgoing = await sub.queue.get()
                if item.kind == "event":
                    if sub.expired():
                        sub.status = "expired"
                        self.drain(sub)
                        return
                    if sub.status != "active":
                        continue
                sub.inflight = True
                try:
                    keep_going = await self._deliver(sub, item)
                finally:
                    sub.inflight = False
                if not keep_going or item.kind == "terminated":
                    return
        except asyncio.CancelledError:
            raise
        except Exception:  # pragma: no cover - a bug here must not go silent
            logger.exception("delivery worker for %s crashed", sub.id)

    async def _deliver(self, sub: Subscription, item: Outgoing) -> bool:
        """Deliver with retries; False when the subscription must stop."""
        delays = list(self.state.config.retry_delays_ms)
        attempt = 0
        while True:
            attempt += 1
            status, category, _ = await self.post(
                sub.id, sub.url, item, sub.signing_secrets(), attempt
            )
            now = datetime.now(UTC)
            if category is None:
                sub.last_delivery_at = now
                sub.last_error = None
                sub.failed_since = None
                sub.consecutive_failures = 0
                if item.seq is not None:
                    sub.watermark = max(sub.watermark, item.seq)
                return True
            sub.last_error = category
            sub.failed_since = sub.failed_since or now
            if status == 410:
                if not dialect.gone_ends_subscription(self.state.config.dialect):
                    # SEP-3415: the receiver refused this one delivery on
                    # purpose; it is not retried, the subscription goes on.
                    if item.seq is not None:
                        sub.watermark = max(sub.watermark, item.seq)
                    return True
                # The receiver tombstoned this subscription: stop delivering to it.
                sub.status = "gone"
                self.drain(sub)
                return False
            if status == 413 or attempt > len(delays) or item.kind == "terminated":
                break
            await asyncio.sleep(delays[attempt - 1] / 1000)
            if item.kind == "event" and (sub.expired() or sub.status != "active"):
                return not sub.expired()
        # Abandoned: the watermark passes it, no gap signal (SEP-3415 §"Webhook event delivery").
        if item.seq is not None:
            sub.watermark = max(sub.watermark, item.seq)
        sub.consecutive_failures += 1
        if sub.consecutive_failures >= max(1, self.state.config.suspend_after_failures):
            sub.status = "suspended"
            self.drain(sub)
        return True
