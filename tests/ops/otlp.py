"""An OTLP/HTTP trace receiver on loopback, for the tests whose spans come
from other processes: it accepts ``POST /v1/traces`` as the OpenTelemetry
exporters send it (protobuf, or JSON) and decodes the request with the
``opentelemetry-proto`` package, the wire format's own definitions."""

from __future__ import annotations

import gzip
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan


@dataclass(frozen=True)
class ReceivedSpan:
    service: str
    name: str
    kind: str  # "SERVER", "CLIENT", "PRODUCER", "CONSUMER", "INTERNAL"
    trace_id: str  # hex, as in traceparent
    span_id: str
    parent_span_id: str  # "" for a root span
    attributes: dict[str, Any] = field(default_factory=dict)


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


def _spans(request: ExportTraceServiceRequest) -> list[ReceivedSpan]:
    spans = []
    for resource_spans in request.resource_spans:
        resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append(
                    ReceivedSpan(
                        service=str(resource.get("service.name", "")),
                        name=span.name,
                        kind=ProtoSpan.SpanKind.Name(span.kind).removeprefix("SPAN_KIND_"),
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_span_id=span.parent_span_id.hex(),
                        attributes={a.key: _value(a.value) for a in span.attributes},
                    )
                )
    return spans


class OtlpReceiver:
    """``endpoint`` is what ``OTEL_EXPORTER_OTLP_ENDPOINT`` takes (the
    exporter appends ``/v1/traces``)."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.requests = 0
        lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server API
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path != "/v1/traces":
                    self.send_error(404)
                    return
                request = ExportTraceServiceRequest()
                content_type = self.headers.get("Content-Type", "")
                if content_type.startswith("application/json"):
                    json_format.Parse(body, request)
                else:
                    request.ParseFromString(body)
                with lock:
                    receiver.spans.extend(_spans(request))
                    receiver.requests += 1
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def trace(self, trace_id: str) -> list[ReceivedSpan]:
        return [s for s in list(self.spans) if s.trace_id == trace_id]

    def wait_for(self, predicate, *, timeout: float = 30) -> list[ReceivedSpan]:
        """Spans received so far once ``predicate(spans)`` holds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            spans = list(self.spans)
            if predicate(spans):
                return spans
            time.sleep(0.2)
        summary = "\n".join(
            f"{s.service} {s.kind} {s.name} trace={s.trace_id} span={s.span_id} "
            f"parent={s.parent_span_id}"
            for s in self.spans
            if not s.name.isupper()  # leave out the redis commands
        )
        raise AssertionError(f"spans not received within {timeout}s; received:\n{summary}")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
