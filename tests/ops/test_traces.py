"""Traces, with the OpenTelemetry SDK's in-memory exporter in this process:
one trace runs from the host's ``POST …/messages`` through the fan-out to
the server's call, whose span follows the MCP semantic conventions; the
reference server (a real process) receives the call's ``traceparent`` on
the HTTP request and in ``params._meta``; log lines carry the trace id."""

from __future__ import annotations

import json
import logging

import pytest
from django.test import override_settings
from opentelemetry import trace
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from switchboard import telemetry
from switchboard.services.servers import server_register
from tests.consent.support import allow_all, open_request
from tests.factories import SYSTEM

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]

# One per process: the SDK's tracer provider can be set only once.
EXPORTER = InMemorySpanExporter()


@pytest.fixture
def spans():
    assert not telemetry.enabled(), "tracing must be off unless configured"
    telemetry.tracing_setup(exporter=EXPORTER)
    EXPORTER.clear()
    try:
        yield EXPORTER
    finally:
        telemetry.tracing_stop()
        EXPORTER.clear()


def trace_id_of(traceparent: str) -> str:
    return traceparent.split("-")[1]


def test_one_trace_from_the_hosts_message_to_each_server_call(personas, refserver, spans, caplog):
    server = server_register(host=personas.acme, name="Ref", actor=SYSTEM, url=refserver.mcp_url)
    allow_all(open_request(personas, server, ["conversation:read"]))
    spans.clear()
    caplog.set_level(logging.INFO)
    answer = personas.acme_api.post(
        "/conversations/c1/messages",
        {"user": "alice", "message_id": "m1", "content": "What about the database?"},
    )
    assert answer.status_code == 200, answer.json()
    assert answer.json()["items"]

    finished = spans.get_finished_spans()
    [request] = [s for s in finished if s.kind == SpanKind.SERVER]
    assert request.name == "POST api/v1/conversations/<conversation_id>/messages"
    trace_id = request.context.trace_id
    [call] = [s for s in finished if s.name == "conversation/userMessage"]
    # The MCP semantic conventions: name, kind, attributes.
    assert call.kind == SpanKind.CLIENT
    assert call.attributes["mcp.method.name"] == "conversation/userMessage"
    assert call.attributes["server.address"] == "127.0.0.1"
    assert call.attributes["server.port"] == refserver.port
    assert call.attributes["network.transport"] == "tcp"
    assert call.attributes["mcp.protocol.version"]
    assert "error.type" not in call.attributes
    # One trace: the call descends from the host's request.
    assert call.context.trace_id == trace_id
    by_id = {s.context.span_id: s for s in finished}
    parent, chain = call.parent, []
    while parent is not None and parent.span_id in by_id:
        chain.append(by_id[parent.span_id].name)
        parent = by_id[parent.span_id].parent
    assert request.name in chain, chain
    # Nothing of the request started a trace of its own.
    assert all(s.context.trace_id == trace_id for s in finished if s.parent is not None)

    # The server received the call's trace context on the HTTP request and in _meta.
    [received] = [
        r for r in refserver.received()["requests"] if r["method"] == "conversation/userMessage"
    ]
    assert received["traceparent"], received
    assert trace_id_of(received["traceparent"]) == format(trace_id, "032x")
    assert trace_id_of(received["meta"]["traceparent"]) == format(trace_id, "032x")

    summary = [
        f"{s.name} [{s.kind.name}] parent={by_id[s.parent.span_id].name if s.parent and s.parent.span_id in by_id else None}"
        for s in finished
    ]
    print("\n".join(summary))


def test_log_lines_carry_the_trace_id_and_json_is_one_object_a_line(spans):
    record = logging.LogRecord("switchboard", logging.INFO, __file__, 1, "hello %s", ("you",), None)
    tracer = telemetry._tracer
    with tracer.start_as_current_span("work") as span:
        telemetry.TraceIdFilter().filter(record)
    line = json.loads(telemetry.JsonFormatter().format(record))
    assert line["message"] == "hello you"
    assert line["trace_id"] == format(span.get_span_context().trace_id, "032x")
    assert line["span_id"] == format(span.get_span_context().span_id, "016x")
    outside = logging.LogRecord("x", logging.INFO, __file__, 1, "plain", (), None)
    telemetry.TraceIdFilter().filter(outside)
    assert outside.trace_id == "" and outside.trace_suffix == ""


# A loaded machine must not turn the one POST into a retry.
@override_settings(HOST_DELIVERY_TIMEOUT=15)
def test_a_host_delivery_carries_the_trace_that_caused_it(personas, receiver, spans):
    from outbox.emit import host_event_emit
    from outbox.services import host_endpoint_set
    from outbox.services.sending import host_delivery_send

    _, receiver.secret = host_endpoint_set(host=personas.acme, url=receiver.url, actor=SYSTEM)
    delivery = host_event_emit(host_id=personas.acme.id, type="ping", data={})
    with telemetry._tracer.start_as_current_span("cause") as cause:
        assert host_delivery_send(seq=delivery.seq) == "delivered"
    [traceparent] = receiver.traceparents
    assert traceparent and trace_id_of(traceparent) == format(
        cause.get_span_context().trace_id, "032x"
    )
    assert receiver.accepted("ping")  # still signed and verified as before


def _by_method(received: list[dict], method: str) -> list[dict]:
    return [r for r in received if r["method"] == method]


def test_opening_a_session_and_a_held_stream_are_spans_with_the_session_id(
    refserver, spans, settings
):
    """The MCP semantic conventions: opening a session is the handshake's
    CLIENT span (``initialize`` in the 2025 era), a held ``events/stream`` is
    a CLIENT span for as long as it stays open, and every MCP span carries
    the ``mcp.session.id`` the server gave the connection and the
    ``jsonrpc.request.id`` of its request."""
    from asgiref.sync import async_to_sync

    from switchboard.mcp import McpSession, McpTarget

    settings.ALLOW_PRIVATE_TARGETS = True
    inside_the_stream: list[int] = []

    async def hold_a_stream() -> None:
        async with McpSession(McpTarget(url=refserver.mcp_url, mode="legacy")) as session:
            await session.list_events()
            async with session.stream(name="deploy.status") as stream:
                first = await stream.__anext__()
                assert first.kind == "active"
                inside_the_stream.append(trace.get_current_span().get_span_context().span_id)

    async_to_sync(hold_a_stream)()
    finished = spans.get_finished_spans()
    received = refserver.received()["requests"]
    [server_session] = {r["sessionId"] for r in received if r["sessionId"]}

    [opened] = [s for s in finished if s.name == "initialize"]
    assert opened.kind == SpanKind.CLIENT
    assert opened.attributes["mcp.method.name"] == "initialize"
    assert opened.attributes["mcp.session.id"] == server_session
    assert opened.attributes["mcp.protocol.version"] == "2025-11-25"
    assert opened.attributes["server.port"] == refserver.port

    [listed] = [s for s in finished if s.name == "events/list"]
    [list_request] = _by_method(received, "events/list")
    assert listed.attributes["mcp.session.id"] == server_session
    assert listed.attributes["jsonrpc.request.id"] == str(list_request["requestId"])

    [held] = [s for s in finished if s.name == "events/stream"]
    [stream_request] = _by_method(received, "events/stream")
    assert held.kind == SpanKind.CLIENT
    assert held.attributes["mcp.method.name"] == "events/stream"
    assert held.attributes["mcp.session.id"] == server_session
    assert held.attributes["jsonrpc.request.id"] == str(stream_request["requestId"])
    assert "error.type" not in held.attributes  # our own abort ends it, no failure
    # The stream's request carries the stream's span (or the SDK's own send
    # span under it) as the parent it names.
    by_id = {s.context.span_id: s for s in finished}
    named = by_id[int(stream_request["traceparent"].split("-")[2], 16)]
    while named is not held and named.parent is not None:
        named = by_id[named.parent.span_id]
    assert named is held
    assert held.start_time < held.end_time
    # What the holder does with the messages is not part of the request.
    assert inside_the_stream and inside_the_stream[0] != held.context.span_id


def test_a_2026_session_opens_with_server_discover_and_has_no_session_id(
    refserver, spans, settings
):
    from asgiref.sync import async_to_sync

    from switchboard.mcp import McpSession, McpTarget

    settings.ALLOW_PRIVATE_TARGETS = True

    async def open_one() -> None:
        async with McpSession(McpTarget(url=refserver.mcp_url)) as session:
            await session.list_events()

    async_to_sync(open_one)()
    finished = spans.get_finished_spans()
    # Ours (the SDK adds its own "MCP send …" spans, without the server's address).
    [opened, listed] = [s for s in finished if "server.address" in s.attributes]
    assert listed.name == "events/list"
    assert opened.name == "server/discover"
    assert opened.attributes["mcp.method.name"] == "server/discover"
    assert opened.attributes["mcp.protocol.version"] == "2026-07-28"
    # The 2026 era has no sessions: the conventions record the id only within one.
    assert all("mcp.session.id" not in s.attributes for s in finished)
