"""How the host receives a subscription's events (docs/host-integration.md ``channel``).

- ``realtime`` (stored as ``{}``): one ``event.received`` per event.
- ``cron``: ``{"type": "cron", "expression", "timezone", "max_events"}``: at
  each firing, one ``events.digest`` with what arrived since the previous
  one; nothing for an empty window. Firings are computed by ``cronsim`` in
  the IANA zone (``zoneinfo``), so "09:00 Europe/Paris" stays 09:00 across a
  DST change; a local time the change skips fires at the next valid minute.
- ``scheduled``: ``{"type": "scheduled", "deliver_at", "expire_after"}``: one
  digest at that time, then (by default) the subscription is revoked.

Events of a digest subscription are stored ``waiting`` by the receiving
paths (``digest_state``) instead of forwarded; ``digests`` sends them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cronsim import CronSim, CronSimError
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from subscriptions.models import Subscription
from switchboard.errors import Invalid

DEFAULT_MAX_EVENTS = 100
MAX_EVENTS_CAP = 1000


def channel_parse(value: dict[str, Any] | None) -> dict[str, Any]:
    """A host's channel, checked (422 naming the field) and stored normalised."""
    if not value or value.get("type") in (None, "realtime"):
        return {}
    kind = value.get("type")
    if kind == "cron":
        expression = value.get("expression")
        if not isinstance(expression, str) or not expression.strip():
            raise Invalid("a cron channel needs an expression", field="channel.expression")
        zone = _zone(value.get("timezone") or "UTC")
        try:
            CronSim(expression, timezone.now().astimezone(zone))
        except CronSimError as exc:
            raise Invalid(
                f"{expression!r} is not a cron expression: {exc}", field="channel.expression"
            ) from None
        max_events = value.get("max_events", DEFAULT_MAX_EVENTS)
        if not isinstance(max_events, int) or not 1 <= max_events <= MAX_EVENTS_CAP:
            raise Invalid(
                f"must be a whole number from 1 to {MAX_EVENTS_CAP}", field="channel.max_events"
            )
        return {
            "type": "cron",
            "expression": expression.strip(),
            "timezone": str(zone),
            "max_events": max_events,
        }
    if kind == "scheduled":
        deliver_at = _moment(value.get("deliver_at"))
        if deliver_at is None:
            raise Invalid("must be a time with its offset", field="channel.deliver_at")
        if deliver_at <= timezone.now():
            raise Invalid("must be in the future", field="channel.deliver_at")
        expire_after = value.get("expire_after", True)
        if not isinstance(expire_after, bool):
            raise Invalid("must be true or false", field="channel.expire_after")
        return {
            "type": "scheduled",
            "deliver_at": deliver_at.isoformat(),
            "expire_after": expire_after,
            "max_events": DEFAULT_MAX_EVENTS,
        }
    raise Invalid("must be realtime, cron or scheduled", field="channel.type")


def _zone(name: Any) -> ZoneInfo:
    try:
        return ZoneInfo(str(name))
    except (ZoneInfoNotFoundError, ValueError):
        raise Invalid(
            f"{name!r} is not an IANA time zone (e.g. Europe/Paris)", field="channel.timezone"
        ) from None


def _moment(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if timezone.is_aware(value) else None
    if not isinstance(value, str):
        return None
    try:
        parsed = parse_datetime(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed is not None and timezone.is_aware(parsed) else None


def is_digest(channel: dict[str, Any] | None) -> bool:
    return channel is not None and channel.get("type") in ("cron", "scheduled")


def next_firing(channel: dict[str, Any], after: datetime) -> datetime | None:
    """The channel's next digest time strictly after ``after`` (None: no more)."""
    if channel.get("type") == "cron":
        zone = ZoneInfo(channel["timezone"])
        return next(CronSim(channel["expression"], after.astimezone(zone)))
    if channel.get("type") == "scheduled":
        at = _moment(channel.get("deliver_at"))
        return at if at is not None and at > after else None
    return None


def channel_schedule(sub: Subscription, *, now: datetime) -> None:
    """Set the first window and due time of a (new or changed) channel; the
    caller saves ``next_digest_at`` and ``digest_from``."""
    if is_digest(sub.channel):
        sub.next_digest_at = next_firing(sub.channel, now)
        sub.digest_from = sub.digest_from or now
    else:
        sub.next_digest_at = None
        sub.digest_from = None
