"""What a host asks of a subscription beyond the event itself (docs/host-integration.md):
a ``filter`` applied before forwarding, and ``expires_at``.

- ``filter_parse`` / ``expires_at_check``: 422 naming the field.
- ``event_passes``: the receiving paths (webhook, poll, push) ask it before
  forwarding; a held-back event is stored (so a replay is still recognised)
  and counted in ``filtered_count``, never forwarded.
- ``subscription_settings_change``: ``PATCH /subscriptions/{id}``.
Beat revokes what reached ``expires_at``: ``lifecycle.subscriptions_expire_due``.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import Any

from django.db import transaction
from django.utils import timezone

from subscriptions.models import LIVE_STATUSES, Subscription
from subscriptions.services.channels import channel_parse, channel_schedule, is_digest
from subscriptions.services.common import subscription_broadcast, subscription_record
from switchboard.actors import Actor
from switchboard.errors import Invalid
from switchboard.patterns import PRIORITIES, EventFilter, PatternError, event_labels, pattern_check

SYSTEM = Actor.system("subscriptions")
MAX_ITEMS = 50
MAX_TAG = 100
UNCHANGED: Any = ...


def filter_parse(value: dict[str, Any] | None) -> dict[str, list[str]]:
    """A host's filter, checked and normalised for storage ({} = none)."""
    if not value:
        return {}
    out: dict[str, list[str]] = {}
    for key in value:
        if key not in ("event_types", "tags", "priority"):
            raise Invalid(f"unknown filter field {key!r}", field=f"filter.{key}")
    for key in ("event_types", "tags", "priority"):
        items = value.get(key)
        if items is None:
            continue
        if not isinstance(items, list) or len(items) > MAX_ITEMS:
            raise Invalid(f"must be a list of at most {MAX_ITEMS}", field=f"filter.{key}")
        for i, item in enumerate(items):
            _check_item(key, i, item)
        if items:
            out[key] = list(dict.fromkeys(items))
    return out


def _check_item(key: str, index: int, item: Any) -> None:
    field = f"filter.{key}[{index}]"
    if key == "event_types":
        try:
            pattern_check(item)
        except PatternError as exc:
            raise Invalid(f"{item!r} {exc}", field=field) from None
    elif key == "priority":
        if item not in PRIORITIES:
            raise Invalid(f"must be one of {', '.join(PRIORITIES)}", field=field)
    elif not isinstance(item, str) or not item or len(item) > MAX_TAG:
        raise Invalid(f"a tag is a string of 1 to {MAX_TAG} characters", field=field)


def expires_at_check(value: datetime | None) -> datetime | None:
    if value is not None and value <= timezone.now():
        raise Invalid("must be in the future", field="expires_at")
    return value


@lru_cache(maxsize=16384)
def _compiled(filter_json: str) -> EventFilter:
    return EventFilter.from_json(json.loads(filter_json))


def event_passes(stored_filter: dict[str, Any] | None, occurrence: dict[str, Any]) -> bool:
    """Whether the host's filter lets this event through (an empty one does)."""
    if not stored_filter:
        return True
    compiled = _compiled(json.dumps(stored_filter, sort_keys=True))
    tags, priority = event_labels(occurrence)
    name = occurrence.get("name") or occurrence.get("type") or ""
    return compiled.matches(str(name), tags, priority)


def subscription_settings_change(
    *,
    subscription: Subscription,
    actor: Actor,
    filter: dict[str, Any] | None | Any = UNCHANGED,
    expires_at: datetime | None | Any = UNCHANGED,
    channel: dict[str, Any] | None | Any = UNCHANGED,
) -> Subscription:
    """``PATCH``: the fields given change (null clears), recorded in the ledger.
    A new channel starts its schedule now; events already waiting for a
    digest go with the next one, or, when it became realtime, in one last
    digest sent at once."""
    new_filter = UNCHANGED if filter is UNCHANGED else filter_parse(filter)
    new_expiry = UNCHANGED if expires_at is UNCHANGED else expires_at_check(expires_at)
    new_channel = UNCHANGED if channel is UNCHANGED else channel_parse(channel)
    with transaction.atomic():
        sub = (
            Subscription.objects.select_for_update(no_key=True, of=("self",))
            .select_related("server", "user")
            .get(pk=subscription.pk)
        )
        if sub.status not in LIVE_STATUSES:
            raise Invalid(f"the subscription is {sub.status}", field="status", code="not_live")
        changed: dict[str, Any] = {}
        if new_filter is not UNCHANGED and new_filter != sub.filter:
            changed["filter"] = {"from": sub.filter, "to": new_filter}
            sub.filter = new_filter
        if new_expiry is not UNCHANGED and new_expiry != sub.expires_at:
            changed["expires_at"] = {
                "from": sub.expires_at.isoformat() if sub.expires_at else None,
                "to": new_expiry.isoformat() if new_expiry else None,
            }
            sub.expires_at = new_expiry
        if new_channel is not UNCHANGED and new_channel != sub.channel:
            changed["channel"] = {"from": sub.channel, "to": new_channel}
            sub.channel = new_channel
            channel_schedule(sub, now=timezone.now())
            if not is_digest(new_channel) and sub.received.filter(digest_state="waiting").exists():
                sub.next_digest_at = timezone.now()
        if changed:
            sub.save(
                update_fields=[
                    "filter",
                    "expires_at",
                    "channel",
                    "next_digest_at",
                    "digest_from",
                    "updated_at",
                ]
            )
            subscription_record(
                sub,
                kind="changed",
                actor=actor,
                summary=f"Subscription to {sub.event_name} on {sub.server.name}: "
                + ", ".join(changed)
                + " changed",
                detail=changed,
            )
            subscription_broadcast(sub)
    return sub
