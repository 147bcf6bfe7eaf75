"""Assemble the ASGI app: the MCP server at /mcp, the MCPE server at
/mcpe/mcp (refserver.mcpe) plus the control routes.

One Starlette app on one port, so a test needs a single free port. The MCP
apps are mounted rather than served alone because their lifespans (one
Streamable HTTP session manager each) must be entered by the outer app,
together with the webhook delivery client and the MCPE timers.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import SubscriptionsListenRequestParams
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from refserver.config import Config
from refserver.control import build_routes
from refserver.conversation import ConversationExtension, HooksExtension
from refserver.delivery import DeliveryManager
from refserver.events import EventsExtension
from refserver.heap import HeapKeeper
from refserver.identity import WELL_KNOWN_PATH
from refserver.listen import ListenHandler
from refserver.mcpe import RefuseSessionless, build_mcpe_server
from refserver.mcpe_control import build_mcpe_routes
from refserver.mcpe_hub import McpeHub
from refserver.middleware import build_middleware
from refserver.state import State
from refserver.tasks import TasksExtension, task_result_middleware
from refserver.tasks_control import build_task_routes
from refserver.tools import register_tools

INSTRUCTIONS = (
    "Reference server for Switchboard tests: events, conversation context, hooks, "
    "a login tool that triggers a thread-scoped capability refresh, and a deploy tool "
    "that answers a task with a deploy.progress event source."
)


def build_mcp_server(state: State) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(
        state.config.name,
        instructions=INSTRUCTIONS,
        version="1.0.0",
        extensions=[
            EventsExtension(state),
            ConversationExtension(state),
            HooksExtension(state),
            TasksExtension(state),
        ],
        # Innermost, so it sees the serialized deploy result (refserver.tasks).
        middleware=[*build_middleware(state), task_result_middleware(state)],
        log_level="WARNING",
    )
    register_tools(server, state)
    # Our listen handler also honours the events extension's eventsListChanged.
    server._lowlevel_server.add_request_handler(
        "subscriptions/listen",
        SubscriptionsListenRequestParams,
        ListenHandler(state, server._subscriptions),
    )
    return server


def build_app(config: Config | None = None, *, host: str = "127.0.0.1") -> Starlette:
    state = State(config or Config())
    state.delivery = DeliveryManager(state)
    server = build_mcp_server(state)
    mcp_app = server.streamable_http_app(streamable_http_path="/mcp", host=host)
    mcpe = McpeHub()
    state.mcpe = mcpe
    mcpe_server = build_mcpe_server(mcpe)
    mcpe_app = mcpe_server.streamable_http_app(streamable_http_path="/mcp", host=host)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await state.delivery.start()
        # Short collector pauses with many streams open (refserver.heap).
        keeper = HeapKeeper(lambda: len(state.streams.open))
        heap = asyncio.get_running_loop().create_task(keeper.run())
        try:
            async with (
                server.session_manager.run(),
                mcpe_server.session_manager.run(),
                mcpe.running(),
            ):
                yield
        finally:
            heap.cancel()
            await state.delivery.stop()

    async def webhook_keys(request: Request) -> JSONResponse:
        if not state.config.webhook_identity:
            return JSONResponse({"error": "no webhook identity published"}, status_code=404)
        return JSONResponse(state.identity.jwks())

    app = Starlette(
        routes=[
            *build_routes(state),
            *build_task_routes(state),
            *build_mcpe_routes(mcpe),
            Route(WELL_KNOWN_PATH, webhook_keys, methods=["GET"]),
            Mount("/mcpe", app=RefuseSessionless(mcpe_app)),
            Mount("/", app=mcp_app),
        ],
        lifespan=lifespan,
    )
    app.state.refserver = state
    return app
