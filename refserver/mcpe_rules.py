"""The MCPE proposal's rules as the reference MCPE server applies them:
the tools' input schemas, checking their arguments, events and matching
(with the upstream quirks kept). Used by ``refserver.mcpe_hub``."""

from __future__ import annotations

import copy
import uuid
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cronsim import CronSim, CronSimError

SERVER_NAME = "Ref MCPE"
PRIORITIES = ("low", "normal", "high", "critical")
CHANNELS = ("realtime", "cron", "scheduled")
STATUSES = ("active", "paused", "expired")
HANDLER_TYPES = ("bash", "agent", "webhook")
DEFAULT_QUEUE_LIMIT = 1000  # upstream's maxEventsPerSubscription
TICK_SECONDS = 0.1
SEND_TIMEOUT = 2.0
RECORD_LIMIT = 2000
SESSION_LIMIT = 200
CRON_NICKNAMES = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}

# -- the proposal's input schemas (docs/events-client.md §10) -------------------------------

FILTER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "eventTypes": {
            "type": "array",
            "items": {"type": "string"},
            "description": (
                "Event types, supports wildcards (e.g., ['github.push', 'github.issue.*'])"
            ),
        },
        "tags": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Filter by tags (OR matching)",
        },
        "priority": {
            "type": "array",
            "items": {"enum": list(PRIORITIES)},
            "description": "Filter by priority levels",
        },
    },
}
DELIVERY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "channels": {
            "type": "array",
            "items": {"enum": list(CHANNELS)},
            "description": "How events should be delivered",
        },
        "cronSchedule": {
            "type": "object",
            "properties": {
                "expression": {
                    "type": "string",
                    "description": "Cron expression (e.g., '0 9 * * *')",
                },
                "timezone": {"type": "string", "description": "IANA timezone"},
                "aggregateEvents": {"type": "boolean", "default": True},
            },
            "description": "For cron delivery channel",
        },
        "scheduledDelivery": {
            "type": "object",
            "properties": {
                "deliverAt": {"type": "string", "format": "date-time"},
                "timezone": {"type": "string"},
                "autoExpire": {"type": "boolean", "default": True},
            },
            "description": "For scheduled (one-time) delivery",
        },
    },
    "required": ["channels"],
}
HANDLER_SCHEMA: dict[str, Any] = {
    "description": "Optional handler to process events",
    "oneOf": [
        {
            "type": "object",
            "properties": {
                "type": {"const": "bash"},
                "command": {"type": "string"},
                "args": {"type": "array", "items": {"type": "string"}},
                "input": {"enum": ["stdin", "env", "args"]},
            },
            "required": ["type", "command"],
        },
        {
            "type": "object",
            "properties": {
                "type": {"const": "agent"},
                "systemPrompt": {"type": "string"},
                "model": {"type": "string"},
                "tools": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["type"],
        },
        {
            "type": "object",
            "properties": {
                "type": {"const": "webhook"},
                "url": {"type": "string", "format": "uri"},
                "headers": {"type": "object"},
            },
            "required": ["type", "url"],
        },
    ],
}
SUBSCRIPTION_ID_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"subscriptionId": {"type": "string", "format": "uuid"}},
    "required": ["subscriptionId"],
}
TOOL_SCHEMAS: dict[str, dict[str, Any]] = {
    "events_subscribe": {
        "type": "object",
        "properties": {
            "filter": FILTER_SCHEMA,
            "delivery": DELIVERY_SCHEMA,
            "handler": HANDLER_SCHEMA,
            "expiresAt": {
                "type": "string",
                "format": "date-time",
                "description": "When the subscription should expire",
            },
        },
    },
    "events_unsubscribe": SUBSCRIPTION_ID_SCHEMA,
    "events_list": {
        "type": "object",
        "properties": {"status": {"enum": list(STATUSES)}},
    },
    "events_pause": SUBSCRIPTION_ID_SCHEMA,
    "events_resume": SUBSCRIPTION_ID_SCHEMA,
    "events_update": {
        "type": "object",
        "properties": {
            "subscriptionId": {"type": "string", "format": "uuid"},
            "filter": FILTER_SCHEMA,
            "delivery": DELIVERY_SCHEMA,
            "expiresAt": {"type": "string", "format": "date-time", "nullable": True},
        },
        "required": ["subscriptionId"],
    },
}
TOOL_DESCRIPTIONS = {
    "events_subscribe": "Subscribe to events matching a filter",
    "events_unsubscribe": "Remove a subscription",
    "events_list": "List active subscriptions",
    "events_pause": "Pause a subscription without losing state",
    "events_resume": "Resume a paused subscription",
    "events_update": "Modify an existing subscription",
}


class Refused(Exception):
    """A tool call the server turns down: `isError: true` with this text."""


class Unsendable(Exception):
    """Why a notification could not go out (recorded as dropped)."""


# -- time --------------------------------------------------------------------------


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """JavaScript's `toISOString()`: UTC, milliseconds, `Z`."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def zone(name: Any, where: str) -> ZoneInfo:
    if name is None:
        return ZoneInfo("UTC")
    if not isinstance(name, str) or not name:
        raise Refused(f"{where} must be an IANA timezone name")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise Refused(f"{where}: unknown timezone {name!r}") from None


def parse_time(value: Any, where: str, tz: ZoneInfo | None = None) -> datetime:
    """An ISO 8601 date-time; one without an offset is read in `tz` (else UTC)."""
    if not isinstance(value, str):
        raise Refused(f"{where} must be an ISO 8601 date-time string")
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise Refused(f"{where} is not an ISO 8601 date-time: {value!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=tz or UTC)
    return moment


def cron_expression(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Refused("delivery.cronSchedule.expression must be a cron expression")
    expression = CRON_NICKNAMES.get(value.strip().lower(), value.strip())
    try:
        CronSim(expression, utcnow())
    except (CronSimError, ValueError, IndexError) as exc:
        raise Refused(f"delivery.cronSchedule.expression {value!r} is invalid: {exc}") from None
    return expression


def next_firing(expression: str, tz: ZoneInfo, after: datetime) -> datetime:
    return next(CronSim(expression, after.astimezone(tz))).astimezone(UTC)


# -- argument checks -------------------------------------------------------------------


def _string_list(value: Any, where: str, allowed: tuple[str, ...] | None = None) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Refused(f"{where} must be an array of strings")
    if allowed is not None:
        unknown = [v for v in value if v not in allowed]
        if unknown:
            raise Refused(f"{where}: {unknown} not in {list(allowed)}")
    return list(value)


def check_filter(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Refused("filter must be an object")
    checked = copy.deepcopy(value)
    if "eventTypes" in value:
        _string_list(value["eventTypes"], "filter.eventTypes")
    if "tags" in value:
        _string_list(value["tags"], "filter.tags")
    if "priority" in value:
        _string_list(value["priority"], "filter.priority", PRIORITIES)
    return checked


def check_delivery(value: Any) -> dict[str, Any]:
    if value is None:
        return {"channels": ["realtime"]}
    if not isinstance(value, dict):
        raise Refused("delivery must be an object")
    if "channels" not in value:
        raise Refused("delivery.channels is required")
    channels = _string_list(value["channels"], "delivery.channels", CHANNELS)
    if not channels:
        raise Refused(f"delivery.channels must name at least one of {list(CHANNELS)}")
    if "cron" in channels:
        cron = value.get("cronSchedule")
        if not isinstance(cron, dict):
            raise Refused("delivery.cronSchedule is required for the cron channel")
        cron_expression(cron.get("expression"))
        zone(cron.get("timezone"), "delivery.cronSchedule.timezone")
        limit = cron.get("maxEventsPerDelivery")
        if limit is not None and (
            not isinstance(limit, int) or isinstance(limit, bool) or limit < 1
        ):
            raise Refused("delivery.cronSchedule.maxEventsPerDelivery must be a positive integer")
        if "aggregateEvents" in cron and not isinstance(cron["aggregateEvents"], bool):
            raise Refused("delivery.cronSchedule.aggregateEvents must be a boolean")
    if "scheduled" in channels:
        scheduled = value.get("scheduledDelivery")
        if not isinstance(scheduled, dict):
            raise Refused("delivery.scheduledDelivery is required for the scheduled channel")
        tz = zone(scheduled.get("timezone"), "delivery.scheduledDelivery.timezone")
        parse_time(scheduled.get("deliverAt"), "delivery.scheduledDelivery.deliverAt", tz)
        if "autoExpire" in scheduled and not isinstance(scheduled["autoExpire"], bool):
            raise Refused("delivery.scheduledDelivery.autoExpire must be a boolean")
    return copy.deepcopy(value)


def check_handler(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise Refused("handler must be an object")
    kind = value.get("type")
    if kind not in HANDLER_TYPES:
        raise Refused(f"handler.type must be one of {list(HANDLER_TYPES)}")
    if kind == "bash" and not isinstance(value.get("command"), str):
        raise Refused("handler.command is required for a bash handler")
    if kind == "webhook" and not isinstance(value.get("url"), str):
        raise Refused("handler.url is required for a webhook handler")
    return copy.deepcopy(value)


def check_subscription_id(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise Refused("subscriptionId is required")
    return value


# -- events and matching ------------------------------------------------------------------


def make_event(event_type: str, data: Any, metadata: dict[str, Any] | None) -> dict[str, Any]:
    meta = {k: copy.deepcopy(v) for k, v in (metadata or {}).items() if v is not None}
    meta.setdefault("timestamp", iso(utcnow()))
    return {
        "id": str(uuid.uuid4()),
        "type": event_type,
        "data": copy.deepcopy(data) if data is not None else {},
        "metadata": meta,
    }


def type_matches(pattern: str, event_type: str) -> bool:
    """Exact, or `prefix.*` for anything under `prefix.`; a bare `*` is neither."""
    if pattern.endswith(".*"):
        return event_type.startswith(pattern[:-1])
    return pattern == event_type


def matches(filt: dict[str, Any], event: dict[str, Any]) -> bool:
    """Upstream's rules: each given filter must hold (AND); tags are OR; an
    event without `priority` never satisfies a priority filter."""
    metadata = event.get("metadata") or {}
    types = filt.get("eventTypes") or []
    if types and not any(type_matches(p, event["type"]) for p in types):
        return False
    tags = filt.get("tags") or []
    event_tags = metadata.get("tags")
    if tags and not (isinstance(event_tags, list) and any(t in tags for t in event_tags)):
        return False
    priorities = filt.get("priority") or []
    return not priorities or metadata.get("priority") in priorities


# -- subscriptions --------------------------------------------------------------------------
