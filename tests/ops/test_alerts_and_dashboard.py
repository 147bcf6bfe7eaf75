"""The alert rules and the Grafana dashboard in docs/ops/: promtool accepts
them, and every metric they name is a family the console exposes (checked
against a scrape)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from django.test import override_settings
from prometheus_client.parser import text_string_to_metric_families

from tests.ops.prometheus import binary

OPS = Path(__file__).resolve().parents[2] / "docs" / "ops"
RULES = OPS / "alerts.rules.yml"
DASHBOARD = OPS / "dashboard.json"
METRIC = re.compile(r"\b((?:switchboard|mcp)_[a-z_]+)")
SUFFIXES = ("_total", "_bucket", "_count", "_sum", "_created")
# Label names the pattern also matches (``by (mcp_method_name)``).
LABELS = {"mcp_method_name"}


def promtool(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [binary("promtool"), *args], capture_output=True, text=True, timeout=60, check=False
    )


def family_of(name: str) -> str:
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def dashboard_queries() -> list[str]:
    board = json.loads(DASHBOARD.read_text())
    return [target["expr"] for panel in board["panels"] for target in panel["targets"]]


@pytest.fixture
def scraped(client, db) -> set[str]:
    with override_settings(METRICS_TOKEN="t"):
        text = client.get("/metrics", headers={"Authorization": "Bearer t"}).content.decode()
    return {family.name for family in text_string_to_metric_families(text)}


def test_promtool_accepts_the_alert_rules():
    result = promtool("check", "rules", str(RULES))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_promtool_accepts_every_dashboard_query(tmp_path):
    """Each panel's query as a recording rule: promtool parses the PromQL."""
    rules = {
        "groups": [
            {
                "name": "dashboard",
                "rules": [
                    {"record": f"switchboard_dashboard:panel{i}", "expr": expr}
                    for i, expr in enumerate(dashboard_queries())
                ],
            }
        ]
    }
    path = tmp_path / "dashboard.rules.yml"
    path.write_text(json.dumps(rules))
    result = promtool("check", "rules", str(path))
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_rules_and_the_dashboard_name_only_families_that_exist(scraped):
    named_by_rules = {family_of(n) for n in METRIC.findall(RULES.read_text())} - LABELS
    named_by_dashboard = {
        family_of(n) for e in dashboard_queries() for n in METRIC.findall(e)
    } - LABELS
    assert named_by_rules and named_by_dashboard
    assert named_by_rules - scraped == set()
    assert named_by_dashboard - scraped == set()
    # The dashboard covers every family of tests/ops/test_metrics_endpoint.py.
    table = {
        "switchboard_host_deliveries",
        "switchboard_host_delivery_duration_seconds",
        "switchboard_webhook_receptions",
        "switchboard_conversation_calls",
        "switchboard_conversation_duration_seconds",
        "switchboard_lifecycle_events",
        "switchboard_consent_decisions",
        "switchboard_subscriptions",
        "switchboard_held_streams",
        "switchboard_ledger_entries",
        "switchboard_queue_depth",
        "mcp_client_operation_duration_seconds",
    }
    assert table - named_by_dashboard == set()
