"""Capability lookup order and sources, and what Switchboard advertises."""

from __future__ import annotations

import pytest

from switchboard.mcp import HOOK_EVENTS, McpSession, capabilities_from_dict
from tests.mcp.conftest import RefServer

pytestmark = pytest.mark.processes


def test_lookup_order_on_a_raw_dict() -> None:
    raw = {
        "extensions": {"io.modelcontextprotocol/events": {"listChanged": True}},
        "experimental": {"events": {"listChanged": False}, "hooks": {"declarations": []}},
        "hooks": {"declarations": ["ignored"]},
        "conversationEvents": {"onUserMessage": True},
    }
    caps = capabilities_from_dict(raw)
    assert caps.events == {"listChanged": True}
    assert caps.hooks == {"declarations": []}
    assert caps.conversation_events == {"onUserMessage": True}
    assert caps.sources == {
        "events": "extensions",
        "hooks": "experimental",
        "conversation_events": "toplevel",
    }
    assert caps.on_user_message and caps.supports_events


def test_absent_and_non_object_values() -> None:
    caps = capabilities_from_dict({"experimental": {"events": "yes"}, "hooks": True})
    assert caps.events is None and caps.sources["events"] is None
    assert caps.hooks == {} and caps.sources["hooks"] == "toplevel"
    assert caps.hook_declarations == [] and not caps.on_user_message


# Where the reference server publishes -> where we find it, per era. The SDK strips
# `extensions` on the legacy wire and drops top-level fields in both eras; the raw
# `server/discover` result (2026 only) still has the top-level ones.
CASES = [
    (["extensions", "experimental", "toplevel"], {"auto": "extensions", "legacy": "experimental"}),
    (["extensions"], {"auto": "extensions", "legacy": None}),
    (["experimental"], {"auto": "experimental", "legacy": "experimental"}),
    (["toplevel"], {"auto": "discover", "legacy": None}),
    (["experimental", "toplevel"], {"auto": "experimental", "legacy": "experimental"}),
    ([], {"auto": None, "legacy": None}),
]


@pytest.mark.parametrize(("locations", "expected"), CASES)
async def test_capabilities_from_each_location(
    refserver: RefServer, mode: str, locations: list[str], expected: dict[str, str | None]
) -> None:
    refserver.post("/control/capabilities", {"locations": locations})
    async with McpSession(refserver.target(mode)) as s:
        caps = await s.capabilities()
    source = expected[mode]
    assert caps.sources == {"events": source, "conversation_events": source, "hooks": source}
    if source is None:
        assert caps.events is None and caps.hooks is None and caps.conversation_events is None
    else:
        assert caps.events == {"listChanged": True}
        assert caps.conversation_events == {"onUserMessage": True}
        assert len(caps.hook_declarations) == 4
    assert caps.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
    assert caps.server_info and caps.server_info["name"] == "refserver"


async def test_features_can_come_from_different_places(refserver: RefServer) -> None:
    refserver.post(
        "/control/capabilities",
        {"locations": {"events": ["extensions"], "conversationEvents": ["toplevel"], "hooks": []}},
    )
    async with McpSession(refserver.target("auto")) as s:
        caps = await s.capabilities()
    assert caps.sources == {
        "events": "extensions",
        "conversation_events": "discover",
        "hooks": None,
    }
    assert "_discover" in caps.raw


async def test_switchboard_advertises_supported_events_in_both_places(
    refserver: RefServer, mode: str
) -> None:
    async with McpSession(refserver.target(mode)) as s:
        await s.capabilities()
    [read] = refserver.received("capabilityReads")
    assert read["supportedEvents"] == list(HOOK_EVENTS)
    client_caps = read["clientCapabilities"]
    assert client_caps["extensions"]["io.modelcontextprotocol/hooks"] == {
        "supported_events": list(HOOK_EVENTS)
    }
    assert client_caps["experimental"]["hooks"] == {"supported_events": list(HOOK_EVENTS)}


async def test_declarations_are_filtered_by_what_we_advertise(refserver: RefServer) -> None:
    """SEP-2282 servers drop declarations for unsupported events; we support all six."""
    refserver.post(
        "/control/capabilities",
        {
            "declarations": [
                {"event": e, "context": e, "priority": "suggestion"} for e in HOOK_EVENTS
            ]
        },
    )
    async with McpSession(refserver.target("auto")) as s:
        caps = await s.capabilities()
    assert [d["event"] for d in caps.hook_declarations] == list(HOOK_EVENTS)
