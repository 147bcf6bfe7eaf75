"""``GET /metrics`` (docs/production.md, Metrics): its token, and every family of the
table below from the first scrape, with exactly its labels."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import TestCase, override_settings
from prometheus_client.parser import text_string_to_metric_families

from switchboard.services.audit import audit_record
from tests.subscriptions.support import SYSTEM

TOKEN = "scrape-me"
ROOT = Path(__file__).resolve().parents[2]

# Every family: its labels (histograms: of their buckets, without "le").
FAMILIES = {
    "switchboard_host_deliveries": ("counter", {"type", "outcome"}),
    "switchboard_host_delivery_duration_seconds": ("histogram", {"outcome"}),
    "switchboard_webhook_receptions": ("counter", {"outcome"}),
    "switchboard_conversation_calls": ("counter", {"outcome"}),
    "switchboard_conversation_duration_seconds": ("histogram", set()),
    "switchboard_lifecycle_events": ("counter", {"event", "outcome"}),
    "switchboard_consent_decisions": ("counter", {"scope", "decision"}),
    "switchboard_subscriptions": ("gauge", {"mode", "status"}),
    "switchboard_held_streams": ("gauge", {"kind"}),
    "switchboard_ledger_entries": ("counter", {"kind"}),
    "switchboard_queue_depth": ("gauge", {"queue"}),
    "mcp_client_operation_duration_seconds": ("histogram", {"mcp_method_name", "error_type"}),
}


def scrape(client, token=TOKEN):
    return client.get("/metrics", headers={"Authorization": f"Bearer {token}"})


def families(text: str) -> dict:
    return {f.name: f for f in text_string_to_metric_families(text)}


@pytest.mark.django_db
def test_metrics_are_off_without_a_token_and_closed_to_a_wrong_one(client):
    with override_settings(METRICS_TOKEN=""):
        assert scrape(client).status_code == 404
    with override_settings(METRICS_TOKEN=TOKEN):
        assert client.get("/metrics").status_code == 401
        wrong = scrape(client, token="guess")
        assert wrong.status_code == 401
        assert wrong.json()["error"]["code"] == "unauthorized"
        assert wrong["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.django_db
def test_every_family_of_the_table_is_there_from_the_first_scrape(client):
    with override_settings(METRICS_TOKEN=TOKEN):
        response = scrape(client)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    found = families(response.content.decode())
    for name, (kind, labels) in FAMILIES.items():
        assert name in found, f"{name} missing from the scrape"
        assert found[name].type == kind, name
        for sample in found[name].samples:
            if sample.name.endswith("_created"):
                continue
            assert set(sample.labels) - {"le"} == labels, (name, sample)
    # Known outcomes are there as zeros before anything happened.
    calls = {s.labels["outcome"] for s in found["switchboard_conversation_calls"].samples}
    assert calls == {"answered", "timeout", "error", "skipped"}
    lifecycle = found["switchboard_lifecycle_events"].samples
    assert {"fired", "none", "refused"} <= {s.labels["outcome"] for s in lifecycle}


@pytest.mark.django_db
def test_a_ledger_entry_is_counted_when_it_commits(client, personas):
    def ledger_count() -> float:
        with override_settings(METRICS_TOKEN=TOKEN):
            found = families(scrape(client).content.decode())
        return sum(
            s.value
            for s in found["switchboard_ledger_entries"].samples
            if s.name.endswith("_total") and s.labels["kind"] == "test.metrics"
        )

    before = ledger_count()
    # pytest-django's transaction never commits: an entry written in it is
    # not counted (a rollback counts nothing) ...
    audit_record(host_id=personas.acme.id, kind="test.metrics", actor=SYSTEM, summary="x")
    assert ledger_count() == before
    # ... and one whose commit callbacks run is, once.
    with TestCase.captureOnCommitCallbacks(execute=True):
        audit_record(host_id=personas.acme.id, kind="test.metrics", actor=SYSTEM, summary="y")
    assert ledger_count() == before + 1


# A session worker that holds a listen stream (``_count_held``), in a process
# of its own that writes to the shared directory; ``KILLED`` ends it the way
# SIGKILL or the OOM killer would, before it can forget itself.
HOLDING = "from switchboard import metrics\nmetrics.held_streams.labels(kind='listen').set(1)\n"
KILLED = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"
SCRAPED = (
    "from prometheus_client.parser import text_string_to_metric_families\n"
    "text, _ = metrics.scrape()\n"
    "for family in text_string_to_metric_families(text.decode()):\n"
    "    for sample in family.samples:\n"
    "        if sample.name == 'switchboard_held_streams' and sample.labels == {'kind': 'listen'}:\n"
    "            print(sample.value)\n"
)


def test_a_killed_session_workers_streams_are_not_counted_as_held(tmp_path):
    """The held streams are summed over the live session workers. One killed
    before it could forget itself left its file in the shared directory,
    and every scrape after counted its streams as held (CI saw 3 where one
    worker held 1)."""
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("DATABASE_URL", None)
    killed = subprocess.run([sys.executable, "-c", HOLDING + KILLED], env=env, cwd=ROOT)
    assert killed.returncode == -signal.SIGKILL
    assert list(tmp_path.glob("gauge_livesum_*.db")), "the killed worker left no file"
    # The web process's scrape, beside one live worker holding one stream.
    scraped = subprocess.run(
        [sys.executable, "-c", HOLDING + SCRAPED],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert scraped.stdout.split() == ["1.0"]
