"""Is this delivery from Switchboard? Standard Webhooks signatures, checked by
the ``standardwebhooks`` package, with the previous secret's grace: after the
endpoint is set again, each delivery is signed with the new secret and the
previous one for a while, so either verifies it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from standardwebhooks import Webhook, WebhookVerificationError

__all__ = ["WebhookVerificationError", "verify_delivery"]


def verify_delivery(
    headers: Mapping[str, str],
    body: bytes | str,
    secret: str | Iterable[str],
    *,
    previous_secret: str | None = None,
) -> Any:
    """The delivery's parsed body, if any of its signatures is made with
    ``secret`` (one ``whsec_…`` or several) or ``previous_secret``; else
    ``WebhookVerificationError`` (a bad or missing signature, a stale or future
    timestamp). ``body`` is the raw body as received: parsed and serialised
    again, it no longer matches."""
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if previous_secret:
        secrets.append(previous_secret)
    if not secrets:
        raise ValueError("verify_delivery needs at least one secret")
    plain = {str(key).lower(): str(value) for key, value in headers.items()}
    failure: WebhookVerificationError | None = None
    for each in secrets:
        try:
            return Webhook(each).verify(body, plain)
        except WebhookVerificationError as exc:
            failure = exc
    assert failure is not None
    raise failure
