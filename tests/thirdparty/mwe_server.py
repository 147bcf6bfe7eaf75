"""A server no one here wrote: PyPI's ``mcp-webhook-events`` (a ChatGPT-tested
MCP Events library on the official ``mcp`` SDK), served over Streamable HTTP
exactly as its README sets it up, with the library's own switch for loopback
callbacks (``SafeHttp(allow_insecure_for_tests=True)``).

``python -m tests.thirdparty.mwe_server --port N --store PATH``. The tests
publish through the same store, as the library's README says a cron job or a
worker would (``McpEvents.publish`` + ``deliver_pending``).
"""

from __future__ import annotations

import argparse

from mcp_webhook_events import EventDefinition, McpEvents, SafeHttp

TICKET_UPDATED = EventDefinition(
    name="ticket.updated",
    description="A support ticket you are watching was updated.",
    input_schema={
        "type": "object",
        "properties": {"ticket_id": {"type": "string"}},
        "required": ["ticket_id"],
        "additionalProperties": False,
    },
    payload_schema={
        "type": "object",
        "properties": {"ticket_id": {"type": "string"}, "summary": {"type": "string"}},
        "required": ["ticket_id", "summary"],
        "additionalProperties": False,
    },
)
DEFINITIONS = [TICKET_UPDATED]


def events_for(server, store: str) -> McpEvents:
    return McpEvents(
        server, store=store, definitions=DEFINITIONS, http=SafeHttp(allow_insecure_for_tests=True)
    )


def main() -> None:
    import uvicorn
    from mcp.server import MCPServer

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--store", required=True)
    args = parser.parse_args()
    mcp = MCPServer("Ticket watcher")
    events_for(mcp, args.store).install()
    app = mcp.streamable_http_app(stateless_http=True, json_response=True)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
