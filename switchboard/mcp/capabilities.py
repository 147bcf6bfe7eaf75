"""Reading a server's events / conversation-events / hooks capabilities.

The drafts put these capabilities at the top level of ``ServerCapabilities``
(``events``, ``conversationEvents``, ``hooks``), but the SDK drops unknown
top-level fields in both eras (mcp 2.3.0). Servers therefore publish them as
extensions (2026 era only: the SDK strips ``extensions`` on the legacy wire)
and/or under ``experimental``. Everything in Switchboard reads them through
this module, in this order, first hit wins:

1. ``extensions["io.modelcontextprotocol/events"]``,
   ``["io.modelcontextprotocol/conversation-events"]``,
   ``["io.modelcontextprotocol/hooks"]``          -> source ``"extensions"``
2. ``experimental["events"]``, ``["conversationEvents"]``, ``["hooks"]``
                                                   -> source ``"experimental"``
3. 2026 protocol only: the raw ``server/discover`` result's top-level
   ``capabilities.events`` / ``conversationEvents`` / ``hooks``
                                                   -> source ``"discover"``

(``capabilities_from_dict`` applies 1-2 and then the dict's own top level,
source ``"toplevel"``, for capability JSON a host hands us directly.)

On the legacy protocol a top-level-only capability is invisible: the SDK
gives no access to the raw ``initialize`` result.

Switchboard, in turn, advertises the hook events it supports, because
SEP-2282 servers filter their declarations by ``supported_events``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from switchboard.mcp.declarations import HOOK_EVENTS

__all__ = [
    "CLIENT_EXPERIMENTAL",
    "CONVERSATION_EXTENSION_ID",
    "EVENTS_EXTENSION_ID",
    "FEATURES",
    "HOOKS_EXTENSION_ID",
    "ServerCapabilities",
    "Source",
    "capabilities_from_dict",
    "hooks_client_settings",
]

EVENTS_EXTENSION_ID = "io.modelcontextprotocol/events"
CONVERSATION_EXTENSION_ID = "io.modelcontextprotocol/conversation-events"
HOOKS_EXTENSION_ID = "io.modelcontextprotocol/hooks"

Source = Literal["extensions", "experimental", "discover", "toplevel"]

# feature (our attribute name) -> (extension id, experimental key == top-level key)
FEATURES: dict[str, tuple[str, str]] = {
    "events": (EVENTS_EXTENSION_ID, "events"),
    "conversation_events": (CONVERSATION_EXTENSION_ID, "conversationEvents"),
    "hooks": (HOOKS_EXTENSION_ID, "hooks"),
}


def hooks_client_settings() -> dict[str, Any]:
    """SEP-2282 ``ClientHooksCapability``: every normalized event."""
    return {"supported_events": list(HOOK_EVENTS)}


# What Switchboard puts under ClientCapabilities.experimental (both eras).
CLIENT_EXPERIMENTAL: dict[str, dict[str, Any]] = {"hooks": hooks_client_settings()}


@dataclass(frozen=True)
class ServerCapabilities:
    """A server's custom capabilities and where each was found.

    ``events`` / ``conversation_events`` / ``hooks`` are the capability
    objects (None = not declared). ``sources`` has one key per feature
    (``"events"``, ``"conversation_events"``, ``"hooks"``) mapping to a
    ``Source`` or None. ``raw`` is the full capabilities object as the SDK
    parsed it, with the raw discover capabilities under ``"_discover"`` when
    they were fetched.
    """

    events: dict[str, Any] | None
    conversation_events: dict[str, Any] | None
    hooks: dict[str, Any] | None
    sources: dict[str, Source | None]
    protocol_version: str | None = None
    server_info: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def supports_events(self) -> bool:
        return self.events is not None

    @property
    def events_locations(self) -> list[str]:
        """Every place the events capability was found (not only the first):
        the dialect rests on it (``switchboard.mcp.dialects.detect``)."""
        raw = self.raw
        found = []
        extensions = raw.get("extensions")
        if (
            isinstance(extensions, Mapping)
            and _as_capability(extensions.get(EVENTS_EXTENSION_ID)) is not None
        ):
            found.append("extensions")
        experimental = raw.get("experimental")
        if (
            isinstance(experimental, Mapping)
            and _as_capability(experimental.get("events")) is not None
        ):
            found.append("experimental")
        discover = raw.get("_discover")
        if _as_capability(raw.get("events")) is not None or (
            isinstance(discover, Mapping) and _as_capability(discover.get("events")) is not None
        ):
            found.append("toplevel")
        return found

    @property
    def on_user_message(self) -> bool:
        """The conversation-events SEP: the server wants ``conversation/userMessage``."""
        return bool(self.conversation_events and self.conversation_events.get("onUserMessage"))

    @property
    def hook_declarations(self) -> list[Any]:
        """The raw ``hooks.declarations`` list ([] if absent or not a list)."""
        declarations = (self.hooks or {}).get("declarations")
        return list(declarations) if isinstance(declarations, list) else []

    def as_dict(self) -> dict[str, Any]:
        return {
            "events": self.events,
            "conversationEvents": self.conversation_events,
            "hooks": self.hooks,
            "sources": dict(self.sources),
            "protocol_version": self.protocol_version,
            "server_info": self.server_info,
        }


def _as_capability(value: Any) -> dict[str, Any] | None:
    """A capability object; ``true`` (seen in some drafts) counts as ``{}``."""
    if isinstance(value, Mapping):
        return copy.deepcopy(dict(value))
    if value is True:
        return {}
    return None


def resolve(
    *,
    extensions: Mapping[str, Any] | None,
    experimental: Mapping[str, Any] | None,
    fallback: Mapping[str, Any] | None,
    fallback_source: Source,
) -> tuple[dict[str, dict[str, Any] | None], dict[str, Source | None]]:
    """Apply the lookup order to already-extracted maps."""
    values: dict[str, dict[str, Any] | None] = {}
    sources: dict[str, Source | None] = {}
    for feature, (ext_id, key) in FEATURES.items():
        found: tuple[dict[str, Any], Source] | None = None
        for mapping, source, lookup in (
            (extensions, "extensions", ext_id),
            (experimental, "experimental", key),
            (fallback, fallback_source, key),
        ):
            if isinstance(mapping, Mapping) and lookup in mapping:
                value = _as_capability(mapping[lookup])
                if value is not None:
                    found = (value, source)  # type: ignore[assignment]
                    break
        values[feature] = found[0] if found else None
        sources[feature] = found[1] if found else None
    return values, sources


def missing_features(values: Mapping[str, Any]) -> bool:
    return any(values.get(feature) is None for feature in FEATURES)


def capabilities_from_dict(
    raw: Mapping[str, Any],
    *,
    protocol_version: str | None = None,
    server_info: dict[str, Any] | None = None,
) -> ServerCapabilities:
    """Read a raw ``capabilities`` JSON object (e.g. one a host registered)."""
    values, sources = resolve(
        extensions=raw.get("extensions") if isinstance(raw.get("extensions"), Mapping) else None,
        experimental=raw.get("experimental")
        if isinstance(raw.get("experimental"), Mapping)
        else None,
        fallback=raw,
        fallback_source="toplevel",
    )
    return ServerCapabilities(
        events=values["events"],
        conversation_events=values["conversation_events"],
        hooks=values["hooks"],
        sources=sources,
        protocol_version=protocol_version,
        server_info=server_info,
        raw=copy.deepcopy(dict(raw)),
    )
