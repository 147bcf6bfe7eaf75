"""``events/unsubscribe`` for a subscription we ended, with its attempt
recorded. Below both lifecycle (revoking calls it at once) and refresh."""

from __future__ import annotations

import time

from subscriptions.models import RefreshAttempt, RefreshKind, Subscription
from subscriptions.services.common import receiver_url
from subscriptions.services.remote import remote_unsubscribe, target_for
from switchboard.mcp import McpCallError


def subscription_unsubscribe(*, subscription_id: str) -> bool:
    """``events/unsubscribe`` for a subscription we ended. True when the server
    confirmed (or had already forgotten it); False on a failure worth retrying."""
    sub = Subscription.objects.select_related("server", "user").get(pk=subscription_id)
    if not sub.server.url:
        return True
    started = time.monotonic()
    try:
        removed = remote_unsubscribe(
            target=target_for(user=sub.user, server=sub.server),
            name=sub.event_name,
            arguments=sub.arguments,
            url=receiver_url(sub),
        )
    except McpCallError as exc:
        RefreshAttempt.objects.create(
            subscription=sub,
            kind=RefreshKind.UNSUBSCRIBE,
            ok=False,
            error_category=exc.category if exc.code is None else f"code_{exc.code}",
            error_code=exc.code,
            message=str(exc)[:500],
            duration_ms=int((time.monotonic() - started) * 1000),
        )
        return not exc.retryable
    RefreshAttempt.objects.create(
        subscription=sub,
        kind=RefreshKind.UNSUBSCRIBE,
        ok=True,
        message="" if removed else "the server had already forgotten it",
        duration_ms=int((time.monotonic() - started) * 1000),
    )
    return True
