"""Tools and resources, including the thread-scoped refresh trigger.

`login` returns `_meta.refreshThreadCapabilities = <thread id>` and unlocks
`private_repos` (tool) and `refserver://private/repos` (resource) for that
thread, so a client that honours the refresh sees `tools/list` and
`resources/list` change. Hiding is done by the visibility middleware, since
`tools/list` itself belongs to the SDK.
"""

from __future__ import annotations

import contextlib
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resources import TextResource
from mcp_types import CallToolResult, TextContent

from refserver import requestinfo
from refserver.middleware import private_visible
from refserver.state import State

PROJECT_BRIEF = (
    "Project brief for {name}: a Django service with a Postgres database; "
    "tests run with pytest; deploys go through the release pipeline."
)


def register_tools(server: MCPServer[Any], state: State) -> None:
    @server.tool(description="Echo the given text back.")
    def echo(text: str) -> str:
        return text

    @server.tool(
        description="A short brief about a project; the session_start hook's context tool."
    )
    def project_brief(project_name: str) -> str:
        return PROJECT_BRIEF.format(name=project_name)

    @server.tool(
        description=(
            "Log in for a thread. The result's _meta.refreshThreadCapabilities names the thread "
            "whose tools and resources changed."
        )
    )
    async def login(
        ctx: Context, username: str = "demo", thread_id: str | None = None
    ) -> CallToolResult:
        thread = thread_id or requestinfo.thread_id(ctx.request_context)
        state.logged_in_any = True
        if thread:
            state.logged_in_threads.add(thread)
        await announce_list_changes(ctx)
        text = f"Logged in as {username}" + (
            f" for thread {thread}" if thread else " (no thread id given)"
        )
        meta = {"refreshThreadCapabilities": thread} if thread else None
        return CallToolResult(content=[TextContent(type="text", text=text)], _meta=meta)

    @server.tool(description="List private repositories (only after login).")
    def private_repos(ctx: Context, thread_id: str | None = None) -> CallToolResult:
        thread = thread_id or requestinfo.thread_id(ctx.request_context)
        if not private_visible(state, thread):
            return CallToolResult(
                content=[TextContent(type="text", text="login required")], is_error=True
            )
        return CallToolResult(
            content=[TextContent(type="text", text="acme/secret-api, acme/billing")]
        )

    server.add_resource(
        TextResource(
            uri="refserver://readme",
            name="readme",
            description="What this server is.",
            mime_type="text/plain",
            text="Reference MCP server for Switchboard tests.",
        )
    )
    server.add_resource(
        TextResource(
            uri="refserver://private/repos",
            name="private-repos",
            description="Private repositories (visible after login).",
            mime_type="text/plain",
            text="acme/secret-api\nacme/billing\n",
        )
    )


async def announce_list_changes(ctx: Context) -> None:
    """Also send the standard list_changed signals, best effort.

    The thread-scoped `_meta` is the point of `login`, but a client may also
    react to the ordinary notifications: 2026 clients through
    `subscriptions/listen`, legacy clients on their standalone stream.
    """
    with contextlib.suppress(Exception):
        await ctx.notify_tools_changed()
        await ctx.notify_resources_changed()
    session = ctx.request_context.session
    with contextlib.suppress(Exception):
        await session.send_tool_list_changed()
        await session.send_resource_list_changed()
