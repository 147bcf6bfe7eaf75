"""What one POST to ``/webhooks/mcp/<token>`` does: the checks, cheapest
first and nothing written before all of them pass, then the delivery by
kind (``events``, ``envelopes``).

1. size (413; the ASGI middleware already refused larger bodies unread),
2. headers and freshness (400) — no database needed,
3. the token (404 unknown; 410 for a subscription we ended),
4. the signature over the raw bytes with the current secret, and the
   previous one during the rotation grace (401),
5. ``X-MCP-Subscription-Id`` once the server's id is bound (503: the server
   retries, e.g. while a resubscribe is rebinding),
6. the body (400 malformed).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError, IntegrityError
from django.utils import timezone

from outbox.signing import (
    InboundHeaders,
    Rejected,
    identity_matches,
    inbound_headers,
    signature_matches,
)
from subscriptions.models import DEAD_STATUSES, Subscription, SubscriptionStatus
from subscriptions.services.receiver.answers import Answer, error
from subscriptions.services.receiver.envelopes import control, gap, terminated, verification
from subscriptions.services.receiver.events import event
from subscriptions.services.receiver.refused import tombstone_delivery
from subscriptions.services.receiver.sql import subscription_by_token
from switchboard import metrics
from switchboard.mcp.identity import webhook_keys

log = logging.getLogger(__name__)


def webhook_receive(*, token: str, headers: Mapping[str, str], body: bytes) -> Answer:
    """Handle one delivery; ``headers`` keys are lower-case."""
    answer = _answered(token, headers, body)
    metrics.webhook_receptions.labels(outcome=reception_outcome(answer)).inc()
    return answer


def reception_outcome(answer: Answer) -> str:
    if not 200 <= answer.status < 300:
        return "refused"
    return "duplicate" if (answer.body or {}).get("status") == "duplicate" else "accepted"


def _answered(token: str, headers: Mapping[str, str], body: bytes) -> Answer:
    try:
        return _receive(token, headers, body)
    except Rejected as rejected:
        return error(rejected.status, rejected.code, rejected.message)
    except IntegrityError:
        raise
    except DatabaseError:
        log.exception("webhook receiver: storage failed")
        return error(503, "storage_unavailable", "try again later", **{"Retry-After": "5"})


def _secrets(sub: Subscription, now: datetime) -> list[str]:
    secrets = [sub.secret]
    if (
        sub.previous_secret_encrypted
        and sub.previous_secret_until
        and sub.previous_secret_until > now
    ):
        secrets.append(sub.previous_secret)
    return secrets


def _receive(token: str, headers: Mapping[str, str], body: bytes) -> Answer:
    if len(body) > settings.WEBHOOK_MAX_BODY_BYTES:
        return error(413, "too_large", "the body is over the size limit")
    parsed = inbound_headers(headers, tolerance=settings.WEBHOOK_TIMESTAMP_TOLERANCE)
    sub = subscription_by_token(token)
    if sub is None:
        return error(404, "unknown_receiver", "no such receiver")
    if sub.status in DEAD_STATUSES or sub.status == SubscriptionStatus.PENDING_CONSENT:
        if sub.status in DEAD_STATUSES:
            tombstone_delivery(sub)
        return error(410, "gone", "this subscription has ended")
    now = timezone.now()
    if not signature_matches(body, parsed, _secrets(sub, now)):
        return error(401, "bad_signature", "no signature matches")
    if sub.enforce_identity and not _identity_verified(sub, parsed, body):  # type: ignore[attr-defined]
        return error(401, "bad_identity", "no v1a signature by the server's published keys")
    try:
        payload = json.loads(body)
    except ValueError:
        return error(400, "malformed_body", "the body is not JSON")
    if not isinstance(payload, dict):
        return error(400, "malformed_body", "the body must be a JSON object")
    kind = payload.get("type")
    if kind == "verification":
        # Answered whatever the id says: any non-2xx fails the server's
        # subscribe (SEP-3415 §"Webhook security"); only an unbound subscription takes its id.
        return verification(sub, parsed, payload, now)
    if not sub.remote_id or parsed.subscription_id != sub.remote_id:
        # Case 55: the id is bound by the challenge or the subscribe answer;
        # until then (or for another id) the server retries later.
        return error(503, "unknown_subscription_id", "not routable yet", **{"Retry-After": "5"})
    if kind is None:
        return event(sub, parsed, payload, now)
    if kind == "gap":
        return gap(sub, parsed, payload, now)
    if kind == "terminated":
        return terminated(sub, parsed, payload, now)
    return control(sub, parsed, payload, now)


def _identity_verified(sub: Subscription, parsed: InboundHeaders, body: bytes) -> bool:
    """The server's ed25519 signature, by a key it publishes (fetched again
    once when none verifies: the key may have just rotated)."""
    if not parsed.identity_signatures:
        return False
    server_url = sub.server_url  # type: ignore[attr-defined]  # from the lookup
    if identity_matches(body, parsed, webhook_keys(server_url)):
        return True
    return identity_matches(body, parsed, webhook_keys(server_url, refresh=True))
