"""Switchboard's only MCP client layer: every byte to an MCP server goes through here.

Async (ASGI process)::

    from switchboard.mcp import McpSession, McpTarget, McpCallError

    async with McpSession(McpTarget(url=server.url, headers=headers)) as s:
        reply = await s.user_message(message_id="m1", content="hi", timeout=0.5)

Sync (Celery tasks)::

    from switchboard.mcp import with_session
    caps = with_session(target, lambda s: s.capabilities())

Modules: ``session`` (McpSession/McpTarget: connection and request
plumbing), ``session_events`` and ``session_calls`` (its events calls; its
conversation, tools/resources and tasks calls), ``sync`` (façade), ``errors``
(McpCallError and its categories), ``netguard`` (outbound address guard,
reusable by any outbound HTTP code), ``capabilities`` (where a server's
custom capabilities were found), ``declarations`` (SEP-2282 hook
declarations and ``hook_id``), ``threads`` (thread-scoped refresh helpers), ``wire``
(pydantic wire models), ``streams`` (events/stream consumer).
"""

from switchboard.mcp.capabilities import (
    CONVERSATION_EXTENSION_ID,
    EVENTS_EXTENSION_ID,
    HOOKS_EXTENSION_ID,
    ServerCapabilities,
    capabilities_from_dict,
)
from switchboard.mcp.declarations import (
    HOOK_EVENTS,
    Declaration,
    declarations_from_capability,
    hook_id,
    parse_declarations,
)
from switchboard.mcp.errors import CATEGORIES, McpCallError
from switchboard.mcp.netguard import BlockedTarget, CheckedTarget, acheck_url, check_url
from switchboard.mcp.session import UNSET, McpSession, McpTarget
from switchboard.mcp.streams import EventStream, StreamMessage
from switchboard.mcp.sync import McpSyncClient, run_sync, with_session
from switchboard.mcp.threads import refresh_thread_id, thread_meta
from switchboard.mcp.wire import (
    EventDescriptor,
    EventOccurrence,
    EventsListResult,
    EventsPollResult,
    EventsSubscribeResult,
    UserMessageResult,
)

__all__ = [
    "CATEGORIES",
    "CONVERSATION_EXTENSION_ID",
    "EVENTS_EXTENSION_ID",
    "HOOKS_EXTENSION_ID",
    "HOOK_EVENTS",
    "UNSET",
    "BlockedTarget",
    "CheckedTarget",
    "Declaration",
    "EventDescriptor",
    "EventOccurrence",
    "EventStream",
    "EventsListResult",
    "EventsPollResult",
    "EventsSubscribeResult",
    "McpCallError",
    "McpSession",
    "McpSyncClient",
    "McpTarget",
    "ServerCapabilities",
    "StreamMessage",
    "UserMessageResult",
    "acheck_url",
    "capabilities_from_dict",
    "check_url",
    "declarations_from_capability",
    "hook_id",
    "parse_declarations",
    "refresh_thread_id",
    "run_sync",
    "thread_meta",
    "with_session",
]
