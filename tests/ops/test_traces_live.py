"""Traces across processes: daphne, a Celery worker, beat and a session
worker, each exporting over OTLP/HTTP (``OTEL_EXPORTER_OTLP_ENDPOINT``, as a
deployment sets it) to a receiver in this test, which decodes what arrives
with the OTLP protobuf definitions and tells the processes apart by their
``service.name``. The host's call carries its own ``traceparent``; the web
process's request span continues that trace, and the task the request sent
runs in the worker as a child of the request's publish span: the context
travels in the task's headers. Beat's ticks are publish spans of their own;
the session worker's MCP requests (opening the session to a server whose
stream it holds) are MCP client spans."""

from __future__ import annotations

import os
import secrets
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from config import supervisor as sv
from switchboard.models import ApiKey
from switchboard.services.servers import server_register
from tests.live import ARTIFACTS, _env, forget_beat_schedule, free_port, wait_for_worker
from tests.ops.otlp import OtlpReceiver
from tests.subscriptions.support import SYSTEM, wait_for

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]

TASK = "switchboard.api_key_used"  # what a key's first use sends to a worker


@pytest.fixture
def otlp():
    receiver = OtlpReceiver()
    yield receiver
    receiver.close()


@pytest.fixture
def traced_processes(transactional_db, otlp):
    """daphne, a Celery worker, beat and a session worker with tracing on,
    each under its own service name, on a queue of their own (the session's
    live processes, if running, neither take their tasks nor send them
    theirs; this beat leads this queue's schedule). Yields the web process's
    base URL."""
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    queue = f"{os.environ['CELERY_QUEUE']}-traced"
    common = {
        "PUBLIC_BASE_URL": base_url,
        "CELERY_QUEUE": queue,
        "OTEL_EXPORTER_OTLP_ENDPOINT": otlp.endpoint,
        "OTEL_BSP_SCHEDULE_DELAY": "200",  # export within a moment, not 5 s
    }

    def traced(service: str) -> sv.Supervisor:
        return sv.Supervisor(
            env=_env({**common, "OTEL_SERVICE_NAME": service}), log_dir=ARTIFACTS / "traced"
        )

    web, worker, beat, sessions = (
        traced(f"switchboard-{name}") for name in ("web", "worker", "beat", "sessions")
    )
    try:
        daphne = web.start("daphne", sv.daphne_argv(port))
        celery = worker.start("worker", sv.celery_worker_argv(queue=queue, hostname="traced"))
        beat.start("beat", sv.celery_beat_argv())
        sessions.start("session-worker", sv.session_worker_argv())
        sv.wait_for_http(f"{base_url}/healthz", process=daphne.process, timeout=60)
        wait_for_worker(celery, since=0)
        yield base_url
    finally:
        # Together: each waits for its own process to end.
        with ThreadPoolExecutor() as pool:
            list(pool.map(sv.Supervisor.stop_all, (sessions, beat, worker, web)))
        forget_beat_schedule(queue)


def test_every_process_exports_spans_and_a_task_runs_inside_the_hosts_trace(
    tpersonas, otlp, traced_processes, sep_server
):
    # A server the session worker holds a listen stream to (SEP-3415).
    server = server_register(host=tpersonas.acme, name="Ref", url=sep_server.mcp_url, actor=SYSTEM)
    assert server.status == "active", server.last_error_detail
    trace_id, host_span = secrets.token_hex(16), secrets.token_hex(8)
    answer = httpx.get(
        f"{traced_processes}/api/v1/host/endpoint",
        headers={
            "Authorization": f"Bearer {tpersonas.acme_key}",
            "traceparent": f"00-{trace_id}-{host_span}-01",
        },
        timeout=30,
    )
    assert answer.status_code in (200, 404), answer.text
    # The worker did the task's work (the key's first use recorded)...
    wait_for(
        lambda: ApiKey.objects.filter(host=tpersonas.acme, last_used_at__isnull=False).exists(),
        timeout=60,
        message="the worker recorded the key's use",
    )

    # ...and both processes exported their spans of the host's trace.
    def complete(spans) -> bool:
        kinds = {(s.service, s.kind) for s in spans if s.trace_id == trace_id}
        return {("switchboard-web", "SERVER"), ("switchboard-worker", "CONSUMER")} <= kinds

    otlp.wait_for(complete, timeout=60)
    spans = otlp.trace(trace_id)
    by_id = {s.span_id: s for s in spans}

    # The web process continued the host's trace: its request span's parent
    # is the span the host named in traceparent.
    [request] = [s for s in spans if s.service == "switchboard-web" and s.kind == "SERVER"]
    assert request.parent_span_id == host_span
    # The request published the task (a PRODUCER span under the request)...
    [publish] = [s for s in spans if s.kind == "PRODUCER" and s.name.endswith(TASK)]
    assert publish.service == "switchboard-web"
    ancestor = publish
    while ancestor.parent_span_id in by_id and ancestor is not request:
        ancestor = by_id[ancestor.parent_span_id]
    assert ancestor is request
    # ...and the worker ran it as the publish span's child, in the same trace.
    [run] = [s for s in spans if s.kind == "CONSUMER" and s.name.endswith(TASK)]
    assert run.service == "switchboard-worker"
    assert run.parent_span_id == publish.span_id
    # The worker's own work (its database statements, on PostgreSQL) descends from the run.
    for span in spans:
        if span.service == "switchboard-worker" and span is not run:
            parent = span
            while parent.parent_span_id in by_id and parent is not run:
                parent = by_id[parent.parent_span_id]
            assert parent is run, span

    # Beat's ticks are publish spans from beat, and the worker runs each as
    # the publish span's child: a periodic task's trace starts in beat.
    def tick_ran(spans) -> bool:
        published = {
            s.span_id for s in spans if s.service == "switchboard-beat" and s.kind == "PRODUCER"
        }
        return any(
            s.service == "switchboard-worker"
            and s.kind == "CONSUMER"
            and s.parent_span_id in published
            for s in spans
        )

    otlp.wait_for(tick_ran, timeout=30)

    # The session worker opened a session to the server it holds a stream
    # to: the handshake is an MCP client span with the server's address (the
    # MCP SDK's own spans, under ours, carry none).
    def opened(span) -> bool:
        return span.service == "switchboard-sessions" and "server.address" in span.attributes

    handshakes = [
        s for s in otlp.wait_for(lambda ss: any(map(opened, ss)), timeout=30) if opened(s)
    ]
    assert {s.kind for s in handshakes} == {"CLIENT"}
    assert {s.attributes["server.port"] for s in handshakes} == {sep_server.port}
    assert {s.attributes["mcp.method.name"] for s in handshakes} & {"server/discover", "initialize"}

    print(
        "\n".join(
            f"{s.service:<20} {s.kind:<9} {s.name} parent={by_id[s.parent_span_id].name if s.parent_span_id in by_id else s.parent_span_id or None}"
            for s in spans
        )
    )
