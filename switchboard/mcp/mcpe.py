"""MCPE (the "MCP Events Extension Proposal"): servers recognised by their
tools, subscriptions managed by calling them, events arriving as bare
``events/*`` notifications on the session.

- ``mcpe_capability``: the registry's ``capabilities.mcpe`` (None: not MCPE).
  Such servers may declare no capability at all; when one sits under
  ``experimental.events`` it is MCPE's (``deliveryChannels``, ``features``),
  not the MCP Events capability, and is read as such.
- ``McpeClientExtension``: the SDK delivers custom notifications only to a
  ``NotificationBinding``; one per method, params kept whole.
- ``mcpe_tool``: one tool call, its JSON result (tool results are text
  content holding JSON; a refusal is ``isError``, raised as ``McpCallError``).
- ``listed_states`` / ``answered_id``: results read in every shape the
  implementations answer: the reference implementation (``@mcpe/core``)
  lists ``{subscriptions: [{id, status}]}`` and answers pause/resume
  ``{subscriptionId, status}``, unsubscribe ``{success}``; our reading of
  the proposal (``refserver``) lists ``subscriptionId``.

Sessions that carry MCPE events must use the legacy handshake: the server
sends the notifications without a related request, which over HTTP travel
only on the legacy session's GET stream.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import mcp_types as types
from mcp.client import ClientExtension, NotificationBinding

from switchboard.mcp.errors import McpCallError

MCPE_TOOLS = (
    "events_subscribe",
    "events_unsubscribe",
    "events_list",
    "events_pause",
    "events_resume",
    "events_update",
)
# Without these four a server is not MCPE; pause/resume are optional (the
# reference implementation registers them only with ``features.pause``).
MCPE_REQUIRED_TOOLS = ("events_subscribe", "events_unsubscribe", "events_list", "events_update")
MCPE_NOTIFICATIONS = ("events/event", "events/batch", "events/subscription_expired")
# Keys of MCPE's own `events` capability (docs/events-client.md §10), none of which
# the MCP Events capability has.
_MCPE_CAPABILITY_KEYS = frozenset({"deliveryChannels", "features", "maxSubscriptions"})


def looks_like_mcpe_capability(events: Any) -> bool:
    return isinstance(events, Mapping) and bool(_MCPE_CAPABILITY_KEYS & set(events))


def mcpe_capability(tool_names: Sequence[str], declared: Any = None) -> dict[str, Any] | None:
    """``capabilities.mcpe`` when the four required tools are there: ``{tools
    (those of the six it has), delivery_channels?, features?,
    max_subscriptions?}`` (from a declared MCPE ``events`` capability, if any)."""
    if not set(MCPE_REQUIRED_TOOLS) <= set(tool_names):
        return None
    out: dict[str, Any] = {"tools": [t for t in MCPE_TOOLS if t in tool_names]}
    if looks_like_mcpe_capability(declared):
        channels = declared.get("deliveryChannels")
        if isinstance(channels, list):
            out["delivery_channels"] = [c for c in channels if isinstance(c, str)]
        if isinstance(declared.get("features"), Mapping):
            out["features"] = dict(declared["features"])
        if isinstance(declared.get("maxSubscriptions"), int):
            out["max_subscriptions"] = declared["maxSubscriptions"]
    return out


def mcpe_can_pause(capability: Mapping[str, Any] | None) -> bool:
    """Pause and resume are there: both tools, and not switched off by a
    declared ``features.pause: false``."""
    capability = capability or {}
    tools = set(capability.get("tools") or ())
    features = capability.get("features") or {}
    return {"events_pause", "events_resume"} <= tools and features.get("pause") is not False


def mcpe_max_subscriptions(capability: Mapping[str, Any] | None) -> int | None:
    value = (capability or {}).get("max_subscriptions")
    return value if isinstance(value, int) and value > 0 else None


def answered_id(result: Mapping[str, Any]) -> str | None:
    """The subscription id a tool result names (``subscriptionId``, or ``id``)."""
    for key in ("subscriptionId", "id"):
        value = result.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def listed_states(result: Mapping[str, Any]) -> dict[str, str]:
    """``events_list``'s rows as ``{id: status}``: each row's ``id`` (the
    reference implementation) or ``subscriptionId`` (ours); a row without
    a status counts as active."""
    found = result.get("subscriptions", result.get("result"))
    rows: list[Any] = found if isinstance(found, list) else []
    out: dict[str, str] = {}
    for row in rows:
        if isinstance(row, Mapping) and (remote_id := answered_id(row)) is not None:
            out[remote_id] = str(row.get("status") or "active")
    return out


AGENT_HANDLER_KEYS = ("type", "systemPrompt", "instructions", "model", "tools", "maxTokens")


def agent_handler_normal(handler: Mapping[str, Any]) -> dict[str, Any] | None:
    """An agent handler reduced to what the user is shown and approves (the
    proposal's fields), or None when it is not one. Two handlers are the same
    when these are equal."""
    if not isinstance(handler, Mapping) or handler.get("type") != "agent":
        return None
    out: dict[str, Any] = {"type": "agent"}
    for key in AGENT_HANDLER_KEYS[1:]:
        value = handler.get(key)
        if key == "tools" and isinstance(value, list):
            out[key] = sorted(str(v) for v in value)
        elif key == "maxTokens" and isinstance(value, int):
            out[key] = value
        elif isinstance(value, str) and value.strip():
            out[key] = value.strip()[:4000]
    return out


class McpeNotificationParams(types.NotificationParams):
    """Every MCPE notification's params, all keys kept."""

    model_config = types.NotificationParams.model_config | {"extra": "allow"}


McpeHandler = Callable[[str, dict[str, Any]], Awaitable[None]]


class McpeClientExtension(ClientExtension):
    """Receives ``events/event``, ``events/batch``, ``events/subscription_expired``."""

    identifier = "dev.switchboard/mcpe"

    def __init__(self, deliver: McpeHandler) -> None:
        self._deliver = deliver

    def notifications(self) -> Sequence[NotificationBinding[Any]]:
        def handler(method: str) -> Callable[[McpeNotificationParams], Awaitable[None]]:
            async def on_notification(params: McpeNotificationParams) -> None:
                await self._deliver(method, params.model_dump(by_alias=True, exclude_none=True))

            return on_notification

        return [
            NotificationBinding(
                method=method, params_type=McpeNotificationParams, handler=handler(method)
            )
            for method in MCPE_NOTIFICATIONS
        ]


async def mcpe_tool(session: Any, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Call one MCPE tool on an open ``McpSession``; its JSON result."""
    result = await session.call_tool(name=name, arguments=arguments)
    text = "".join(
        part.text for part in result.content if isinstance(part, types.TextContent)
    ).strip()
    if result.is_error:
        raise McpCallError(
            "mcp_error",
            f"{name} refused: {text[:300] or 'no reason given'}",
            method=f"tools/call {name}",
            server=session.target.safe_url,
        )
    try:
        parsed = json.loads(text) if text else {}
    except ValueError:
        raise McpCallError(
            "protocol",
            f"{name} answered something that is not JSON: {text[:120]!r}",
            method=f"tools/call {name}",
            server=session.target.safe_url,
        ) from None
    if not isinstance(parsed, dict):
        parsed = {"result": parsed}
    return parsed
