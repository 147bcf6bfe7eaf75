"""Retry-window gap recovery (docs/events-client.md §8).

A server retries a webhook delivery for a while (its *retry window*: 10-15
minutes on SEP-3415 servers, hours on ChatGPT's) and then drops it. When our
receiver could not answer for longer than that — the web process or the
workers down, a machine restarting — events may be gone upstream, and nobody
would say so. Beat probes the receiver through the URL the servers use; the
first answer after a silence longer than a server's window re-subscribes each
of its running subscriptions from the cursor we hold (servers that replay
send what we missed) and tells the host once: ``subscription.gap`` with
``reason: "possible_gap"``.
"""

from __future__ import annotations

import logging
from datetime import datetime

import httpx
from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from subscriptions.models import (
    RUNNING_STATUSES,
    Mode,
    ReceiverWatch,
    Subscription,
)
from subscriptions.services.common import due_now, gap_flag
from switchboard.actors import Actor

log = logging.getLogger(__name__)

SYSTEM = Actor.system("receiver watch")
POSSIBLE_GAP = "possible_gap"


def _receiver_answers() -> bool:
    url = settings.PUBLIC_BASE_URL.rstrip("/") + reverse("healthz")
    try:
        response = httpx.get(url, timeout=5, follow_redirects=False, trust_env=False)
    except httpx.HTTPError:
        return False
    # 503 is the app answering "degraded": the receiver itself is up.
    return response.status_code in (200, 503)


def receiver_watch(*, now: datetime | None = None) -> int:
    """Beat: probe the receiver; after a silence longer than a server's retry
    window, recover its subscriptions. Returns how many were recovered."""
    if not _receiver_answers():
        return 0
    now = now or timezone.now()
    with transaction.atomic():
        watch, _ = ReceiverWatch.objects.select_for_update(no_key=True).get_or_create(pk=1)
        silent_since = watch.last_seen_up_at
        watch.last_seen_up_at = now
        outage = (now - silent_since).total_seconds() if silent_since else 0.0
        long_enough = outage >= min(settings.SUBSCRIPTION_RETRY_WINDOWS.values())
        if long_enough:
            watch.last_outage_seconds = outage  # shown to staff; a probe's own tick is not one
        watch.save()
        if silent_since is None or not long_enough:
            return 0
        affected = [
            sub
            for sub in Subscription.objects.select_related("server", "user").filter(
                mode=Mode.WEBHOOK, status__in=RUNNING_STATUSES
            )
            if outage > _window(sub.server.events_dialect)
        ]
        for sub in affected:
            _possible_gap(sub, silent_since=silent_since, outage=outage)
    if affected:
        log.warning(
            "the webhook receiver was silent for %.0f s: %d subscriptions re-subscribed",
            outage,
            len(affected),
        )
    return len(affected)


def _window(dialect: str) -> float:
    windows = settings.SUBSCRIPTION_RETRY_WINDOWS
    return windows.get(dialect, windows[""])


def _possible_gap(sub: Subscription, *, silent_since: datetime, outage: float) -> None:
    """Flag it, tell the host once, and re-subscribe now from the cursor we
    hold (the refresh sends it)."""
    due_now(sub.pk, field="next_refresh_at")
    gap_flag(
        sub,
        cursor=sub.cursor,
        source=POSSIBLE_GAP,
        reason=POSSIBLE_GAP,
        actor=SYSTEM,
        summary=(
            f"Possible gap in {sub.event_name}: our receiver was unreachable for "
            f"{outage / 60:.0f} min, longer than {sub.server.name} retries; "
            "re-subscribed from the last cursor"
        ),
        detail={"silent_since": silent_since.isoformat()},
    )
