"""The event types this server offers, and the loose checks applied to them.

Five types with different delivery-mode sets, so a client can exercise mode
selection (webhook-only, webhook+poll, poll+push without webhook, all three)
and `events/list` paging (five types at the default page size of two =
three pages, the last one short). `deploy.progress` is the event source of
the `deploy` tool's tasks (refserver.tasks). `filterKeys` (server-internal,
not sent on the wire) names the arguments that narrow which emitted events a
subscription receives.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

DEFAULT_EVENT_TYPES: list[dict[str, Any]] = [
    {
        "name": "build.finished",
        "description": "A CI build finished for a repository.",
        "delivery": ["webhook"],
        "inputSchema": {
            "type": "object",
            "properties": {
                "repo": {"type": "string", "description": "owner/name"},
                "branch": {"type": "string"},
            },
            "required": ["repo"],
            "additionalProperties": False,
        },
        "payloadSchema": {
            "type": "object",
            "properties": {
                "repo": {"type": "string"},
                "branch": {"type": "string"},
                "status": {"type": "string", "enum": ["success", "failure", "cancelled"]},
                "url": {"type": "string"},
            },
            "required": ["repo", "status"],
        },
        "filterKeys": ["repo", "branch"],
    },
    {
        "name": "ticket.created",
        "description": "A ticket was opened in the tracker.",
        "delivery": ["webhook", "poll"],
        "inputSchema": {
            "type": "object",
            "properties": {"project": {"type": "string"}},
            "additionalProperties": False,
        },
        "payloadSchema": {
            "type": "object",
            "properties": {
                "project": {"type": "string"},
                "key": {"type": "string"},
                "title": {"type": "string"},
            },
            "required": ["key", "title"],
        },
        "filterKeys": ["project"],
    },
    {
        "name": "alert.fired",
        "description": "A monitoring alert fired.",
        "delivery": ["poll", "webhook"],
        "inputSchema": {
            "type": "object",
            "properties": {"severity": {"type": "string", "enum": ["info", "warning", "critical"]}},
            "additionalProperties": False,
        },
        "payloadSchema": {
            "type": "object",
            "properties": {
                "severity": {"type": "string"},
                "summary": {"type": "string"},
            },
            "required": ["summary"],
        },
        "filterKeys": ["severity"],
    },
    {
        "name": "deploy.status",
        "description": "Progress of a deployment (no webhook: poll or push only).",
        "delivery": ["push", "poll"],
        "inputSchema": {
            "type": "object",
            "properties": {"environment": {"type": "string"}},
            "additionalProperties": False,
        },
        "payloadSchema": {
            "type": "object",
            "properties": {
                "environment": {"type": "string"},
                "state": {"type": "string"},
            },
            "required": ["state"],
        },
        "filterKeys": ["environment"],
    },
    {
        "name": "deploy.progress",
        "description": (
            "Progress of one service's deployment: the event source of the `deploy` tool's "
            "task (subscribe with arguments {service} from the task's initialCursor)."
        ),
        "delivery": ["webhook", "push", "poll"],
        "inputSchema": {
            "type": "object",
            "properties": {"service": {"type": "string", "description": "the deployed service"}},
            "required": ["service"],
            "additionalProperties": False,
        },
        "payloadSchema": {
            "type": "object",
            "properties": {
                "service": {"type": "string"},
                "taskId": {"type": "string"},
                "phase": {"type": "string"},
                "percent": {"type": "integer"},
                "message": {"type": "string"},
            },
            "required": ["phase"],
        },
        "filterKeys": ["service"],
    },
]

_INTERNAL_KEYS = ("filterKeys",)


class Catalog:
    """The current event types; replaceable at runtime through the control surface."""

    def __init__(self) -> None:
        self.types: list[dict[str, Any]] = copy.deepcopy(DEFAULT_EVENT_TYPES)

    def reset(self) -> None:
        self.types = copy.deepcopy(DEFAULT_EVENT_TYPES)

    def get(self, name: str) -> dict[str, Any] | None:
        return next((t for t in self.types if t.get("name") == name), None)

    def names(self) -> list[str]:
        return [t["name"] for t in self.types if isinstance(t.get("name"), str)]

    @staticmethod
    def descriptor(event_type: dict[str, Any]) -> dict[str, Any]:
        """The wire form: everything but server-internal keys."""
        return {k: v for k, v in event_type.items() if k not in _INTERNAL_KEYS}

    def page(self, cursor: str | None, page_size: int) -> tuple[list[dict[str, Any]], str | None]:
        """One page of descriptors and the next page token (None on the last page).

        Raises ValueError for a token this server did not issue.
        """
        offset = decode_page_token(cursor) if cursor else 0
        size = max(1, page_size)
        chunk = self.types[offset : offset + size]
        next_offset = offset + size
        next_cursor = encode_page_token(next_offset) if next_offset < len(self.types) else None
        return [self.descriptor(t) for t in chunk], next_cursor


def encode_page_token(offset: int) -> str:
    # Opaque to clients on purpose: they must echo nextCursor, not compute it.
    return base64.urlsafe_b64encode(f"events:{offset}".encode()).decode()


def decode_page_token(token: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(token.encode()).decode()
        prefix, _, number = raw.partition(":")
        if prefix != "events":
            raise ValueError
        offset = int(number)
        if offset < 0:
            raise ValueError
        return offset
    except Exception as exc:
        raise ValueError(f"invalid page cursor {token!r}") from exc


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}


def loose_validate(value: Any, schema: dict[str, Any], path: str = "arguments") -> list[str]:
    """Check `value` against the subset of JSON Schema our catalog uses.

    Covers type, required, properties, additionalProperties:false and enum;
    enough to reject obviously wrong arguments with -32602 without pulling a
    full validator into a test server.
    """
    problems: list[str] = []
    expected = schema.get("type")
    if isinstance(expected, str) and expected in _JSON_TYPES:
        ok = isinstance(value, _JSON_TYPES[expected])
        if expected in ("integer", "number") and isinstance(value, bool):
            ok = False
        if not ok:
            return [f"{path}: expected {expected}"]
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{path}: must be one of {schema['enum']}")
    if isinstance(value, dict):
        props: dict[str, Any] = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                problems.append(f"{path}.{key}: required")
        for key, item in value.items():
            if key in props:
                problems.extend(loose_validate(item, props[key], f"{path}.{key}"))
            elif schema.get("additionalProperties") is False:
                problems.append(f"{path}.{key}: not allowed")
    return problems


def matches_filter(
    event_type: dict[str, Any], subscription_args: dict[str, Any], event_args: dict[str, Any]
) -> bool:
    """Whether an emitted event reaches a subscription with these arguments.

    Only the type's filter keys narrow; other arguments are configuration.
    `event_args` is what the emitter tagged the event with (or its data).
    """
    for key in event_type.get("filterKeys", []):
        if key in subscription_args and event_args.get(key) != subscription_args[key]:
            return False
    return True
