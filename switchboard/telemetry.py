"""Traces (OpenTelemetry) and the trace id on log lines.

Tracing is on in a process when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set
(spans go there over OTLP/HTTP, batched) — or when a test hands
``tracing_setup`` an exporter. Off, nothing of the SDK is imported, nothing
is instrumented, and the MCP client skips its span and header work
(``enabled()``): no cost beyond one boolean test per call.

On, the maintained instrumentations cover Django (a server span per
request), Celery (publish → run), psycopg, httpx (every host delivery
carries ``traceparent``) and redis; the MCP client adds one span per
request with the MCP semantic conventions' name and attributes
(``mcp_client_span``) and ``traceparent`` on every HTTP request to the
server (``inject_headers``, from the transport); the SDK adds it to
``params._meta`` (SEP-414). So one trace runs from the host's
``POST …/messages`` through the fan-out to each server.

Log lines carry ``trace_id``/``span_id`` (``TraceIdFilter``); with
``LOG_FORMAT=json`` each line is one JSON object (``JsonFormatter``).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from opentelemetry import propagate, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

_lock = threading.Lock()
_enabled = False
_provider: Any = None
_tracer = trace.get_tracer("switchboard")


def enabled() -> bool:
    return _enabled


def tracing_setup(*, exporter: Any = None) -> bool:
    """Turn tracing on in this process if configured (once; later calls are
    no-ops). ``exporter``: export there, synchronously (tests)."""
    global _enabled
    with _lock:
        if _enabled:
            return True
        if exporter is None and not os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
            return False
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

        global _provider
        if _provider is None:  # the SDK lets a process set its provider once
            resource = Resource.create(
                {"service.name": os.environ.get("OTEL_SERVICE_NAME") or "switchboard"}
            )
            _provider = TracerProvider(resource=resource)
            if exporter is None:
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
                    OTLPSpanExporter,
                )

                # Reads OTEL_EXPORTER_OTLP_ENDPOINT (and _HEADERS, _TIMEOUT) itself.
                _provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
            else:
                _provider.add_span_processor(SimpleSpanProcessor(exporter))
            trace.set_tracer_provider(_provider)
        _instrument()
        _enabled = True
        return True


def tracing_stop() -> None:
    """Undo ``tracing_setup``'s instrumentation (a test that traced, so the
    tests after it run as production does without tracing)."""
    global _enabled
    with _lock:
        if not _enabled:
            return
        from opentelemetry.instrumentation.celery import CeleryInstrumentor
        from opentelemetry.instrumentation.django import DjangoInstrumentor
        from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
        from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
        from opentelemetry.instrumentation.redis import RedisInstrumentor

        for instrumentor in (
            DjangoInstrumentor(),
            CeleryInstrumentor(),
            PsycopgInstrumentor(),
            HTTPXClientInstrumentor(),
            RedisInstrumentor(),
        ):
            instrumentor.uninstrument()
        _enabled = False


def _instrument() -> None:
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    DjangoInstrumentor().instrument()
    CeleryInstrumentor().instrument()
    PsycopgInstrumentor().instrument(enable_commenter=False)
    HTTPXClientInstrumentor().instrument()
    RedisInstrumentor().instrument()


def asgi_server_spans(app: Any) -> Any:
    """``app`` (ASGI, HTTP) with a SERVER span per request that continues the
    caller's ``traceparent``, when tracing is on.

    Django's instrumentation traces a request that reaches Django through
    ASGI (daphne) only when ``opentelemetry-instrumentation-asgi`` is
    installed; without it every request under daphne would go untraced and
    the host's trace would stop at our door. So this does that package's
    part here (span name ``{method}`` as the HTTP conventions give it without
    a route, ``http.request.method``, ``url.path``,
    ``http.response.status_code``, ``error.type`` for a 5xx) and steps
    aside when the package is there."""
    import importlib.util

    if not _enabled or importlib.util.find_spec("opentelemetry.instrumentation.asgi"):
        return app

    async def traced(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        carrier = {
            key.decode("latin-1"): value.decode("latin-1")
            for key, value in scope.get("headers") or []
        }
        method = scope.get("method") or "GET"
        attributes: dict[str, Any] = {
            "http.request.method": method,
            "url.path": scope.get("path") or "/",
            "url.scheme": scope.get("scheme") or "http",
            "network.protocol.version": scope.get("http_version") or "1.1",
        }
        if scope.get("server"):
            attributes["server.address"], attributes["server.port"] = scope["server"]
        with _tracer.start_as_current_span(
            method,
            context=propagate.extract(carrier),
            kind=SpanKind.SERVER,
            attributes=attributes,
        ) as span:

            async def send_noting_status(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start":
                    status = int(message["status"])
                    span.set_attribute("http.response.status_code", status)
                    if status >= 500:
                        span.set_attribute("error.type", str(status))
                        span.set_status(Status(StatusCode.ERROR))
                await send(message)

            await app(scope, receive, send_noting_status)

    return traced


def inject_headers(headers: MutableMapping[str, str]) -> None:
    """Put the current trace context (``traceparent``) on outgoing headers."""
    if _enabled:
        propagate.inject(headers)


# Methods whose span name carries a target (the tool's or prompt's name).
_NAMED_TARGETS = {"tools/call", "prompts/get"}


@contextmanager
def mcp_client_span(
    method: str,
    *,
    url: str,
    target: str | None = None,
    protocol_version: str | None = None,
    session_id: str | None = None,
) -> Iterator[Any]:
    """One MCP request as the semantic conventions describe it: span name
    ``{mcp.method.name} {target}``, kind CLIENT, ``mcp.method.name``,
    ``server.address``/``server.port``, ``network.transport``,
    ``mcp.session.id`` when the server gave the connection one,
    ``gen_ai.tool.name`` for ``tools/call``; ``error.type`` when it fails
    (``span_failed``) and ``jsonrpc.request.id`` once sent (``span_note``).
    Opening a session is such a span too (``initialize``, or
    ``server/discover`` where the handshake was the 2026 one)."""
    if not _enabled:
        yield None
        return
    span = mcp_held_span_start(
        method,
        url=url,
        target=target,
        protocol_version=protocol_version,
        session_id=session_id,
    )
    with trace.use_span(
        span, end_on_exit=True, record_exception=False, set_status_on_exception=False
    ):
        yield span


def mcp_held_span_start(
    method: str,
    *,
    url: str,
    target: str | None = None,
    protocol_version: str | None = None,
    session_id: str | None = None,
) -> Any:
    """The span of a request held open (``events/stream``,
    ``subscriptions/listen``), started but not made current: what the holder
    does with each message is not part of the request. The caller runs the
    request in ``span_current`` and ends it with ``span.end()``. None while
    tracing is off."""
    if not _enabled:
        return None
    parts = urlsplit(url)
    attributes: dict[str, Any] = {
        "mcp.method.name": method,
        "network.transport": "tcp",
        "network.protocol.name": "http",
        "server.address": parts.hostname or "",
        "server.port": parts.port or (443 if parts.scheme == "https" else 80),
    }
    if protocol_version:
        attributes["mcp.protocol.version"] = protocol_version
    if session_id:
        attributes["mcp.session.id"] = session_id
    named = target if method in _NAMED_TARGETS and target else None
    if method == "tools/call" and named:
        attributes["gen_ai.tool.name"] = named
        attributes["gen_ai.operation.name"] = "execute_tool"
    name = f"{method} {named}" if named else method
    return _tracer.start_span(name, kind=SpanKind.CLIENT, attributes=attributes)


@contextmanager
def span_current(span: Any) -> Iterator[None]:
    """Make ``span`` current for the block (tasks started in it inherit it),
    without ending it."""
    if span is None:
        yield
        return
    with trace.use_span(span, end_on_exit=False):
        yield


def span_note(
    span: Any, attributes: Mapping[str, Any] | None = None, *, name: str | None = None
) -> None:
    """Attributes learnt during the call (the request id, the session id the
    server answered with); ``name``: the span's name and ``mcp.method.name``
    when the method turned out to be another (the handshake). None values
    are left out."""
    if span is None:
        return
    if name is not None:
        span.update_name(name)
        span.set_attribute("mcp.method.name", name)
    for key, value in (attributes or {}).items():
        if value is not None and value != "":
            span.set_attribute(key, value)


def span_failed(span: Any, error_type: str, message: str = "") -> None:
    if span is not None:
        span.set_attribute("error.type", error_type)
        span.set_status(Status(StatusCode.ERROR, message[:200]))


class TraceIdFilter(logging.Filter):
    """Every record gets ``trace_id`` and ``span_id`` (empty outside a span),
    and ``trace_suffix`` for the text format (`` trace=<id>``, or nothing)."""

    def filter(self, record: logging.LogRecord) -> bool:
        context = trace.get_current_span().get_span_context()
        trace_id = format(context.trace_id, "032x") if context.is_valid else ""
        record.trace_id = trace_id
        record.span_id = format(context.span_id, "016x") if context.is_valid else ""
        record.trace_suffix = f" trace={trace_id}" if trace_id else ""
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line (``LOG_FORMAT=json``), for log collectors."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S%z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "trace_id": getattr(record, "trace_id", ""),
            "span_id": getattr(record, "span_id", ""),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)
