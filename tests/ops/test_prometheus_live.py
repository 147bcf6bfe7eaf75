"""One live scenario: a real Prometheus scrapes the web process with the
bearer token, and what the Celery worker, the web process and a session
worker did on this machine shows in that one scrape (multi-process mode).

Real processes: daphne, a Celery worker and beat, a session worker, the
reference MCP server (SEP-3415 dialect, so the session worker holds a
listen stream), the host's endpoint, Prometheus."""

from __future__ import annotations

import httpx
import pytest

from consent.services import host_policy_update
from outbox.emit import host_event_emit
from switchboard.services.servers import server_register
from tests.consent.support import allow_all, open_request
from tests.live import LIVE_METRICS_TOKEN
from tests.ops.prometheus import Prometheus
from tests.subscriptions.support import SYSTEM, wait_for

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


@pytest.fixture
def prometheus(live, tmp_path):
    server = Prometheus(
        target=f"127.0.0.1:{live.port}", token=LIVE_METRICS_TOKEN, workdir=tmp_path / "prom"
    )
    try:
        yield server
    finally:
        server.stop()


def value(result: list[dict]) -> float:
    return sum(float(series["value"][1]) for series in result)


def test_prometheus_sees_what_every_process_did(
    live, tpersonas, tendpoint, receiver, sep_server, session_workers, prometheus
):
    # Scraped with the token, from the start (before anything happened).
    [up] = prometheus.wait_for('up{job="switchboard"} == 1')
    assert up["metric"]["instance"] == f"127.0.0.1:{live.port}"
    # The live processes serve the whole session: counters start where the
    # tests before this one left them, so what this test does is a difference.
    pings_before = value(
        prometheus.wait_for(
            'switchboard_host_deliveries_total{type="ping",outcome="delivered"} >= 0'
        )
    )
    answered_before = value(
        prometheus.query('switchboard_conversation_calls_total{outcome="answered"}')
    )
    allowed_before = value(
        prometheus.wait_for(
            'switchboard_consent_decisions_total{scope="conversation:read",decision="allowed"} >= 0'
        )
    )

    # The Celery worker delivers to the host endpoint.
    for n in range(5):
        host_event_emit(host_id=tpersonas.acme.id, type="ping", data={"n": n})
    wait_for(lambda: len(receiver.accepted("ping")) == 5, timeout=60, message="5 pings delivered")
    [rate] = prometheus.wait_for(
        'sum(rate(switchboard_host_deliveries_total{type="ping",outcome="delivered"}[1m])) > 0'
    )
    assert float(rate["value"][1]) > 0
    prometheus.wait_for(
        f'sum(switchboard_host_deliveries_total{{type="ping",outcome="delivered"}}) == {pings_before + 5:g}'
    )
    prometheus.wait_for(
        'sum(switchboard_host_delivery_duration_seconds_count{outcome="delivered"}) >= 5'
    )

    # The web process fans a message out to the server the user allowed.
    server = server_register(host=tpersonas.acme, name="Ref", url=sep_server.mcp_url, actor=SYSTEM)
    allow_all(open_request(tpersonas, server, ["conversation:read"]))
    # A loaded machine must not turn the first call (which opens the session) into a timeout.
    host_policy_update(host=tpersonas.acme, actor=SYSTEM, conversation_budget_ms=10_000)
    answer = httpx.post(
        f"{live.base_url}/api/v1/conversations/c1/messages",
        headers={"Authorization": f"Bearer {tpersonas.acme_key}"},
        json={"user": "alice", "message_id": "m1", "content": "What about the database?"},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["items"], answer.json()
    answered = prometheus.wait_for(
        f'sum(switchboard_conversation_calls_total{{outcome="answered"}}) >= {answered_before + 1:g}'
    )
    assert value(answered) == answered_before + 1
    prometheus.wait_for("switchboard_conversation_duration_seconds_count >= 1")
    [histogram] = prometheus.wait_for(
        'mcp_client_operation_duration_seconds_count{mcp_method_name="conversation/userMessage"} >= 1'
    )
    # A success's error_type is empty, which Prometheus stores as no label.
    assert "error_type" not in histogram["metric"]
    buckets = prometheus.query(
        'mcp_client_operation_duration_seconds_bucket{mcp_method_name="conversation/userMessage"}'
    )
    assert {b["metric"]["le"] for b in buckets} >= {"0.1", "1.0", "+Inf"}
    prometheus.wait_for(
        'switchboard_consent_decisions_total{scope="conversation:read",decision="allowed"}'
        f" == {allowed_before:g}"
    )

    # The session worker holds the server's listen stream: the gauge only a
    # session worker sets (summed over the live ones) shows in this scrape.
    session_workers.start()
    prometheus.wait_for('switchboard_held_streams{kind="listen"} == 1')

    # State read at scrape time, and the ledger counted as it is written.
    prometheus.wait_for('switchboard_subscriptions{mode="webhook",status="active"} == 0')
    prometheus.wait_for("switchboard_queue_depth >= 0")

    # The scrape itself: every family of test_metrics_endpoint.py, one text for the whole machine.
    text = httpx.get(
        f"{live.base_url}/metrics",
        headers={"Authorization": f"Bearer {LIVE_METRICS_TOKEN}"},
        timeout=10,
    ).text
    assert 'switchboard_held_streams{kind="listen"} 1.0' in text
    assert (
        f'switchboard_host_deliveries_total{{outcome="delivered",type="ping"}} {pings_before + 5}'
        in text
    )
