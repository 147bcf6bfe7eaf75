"""``GET /metrics`` (docs/production.md, Metrics): its token, and every family of the
table below from the first scrape, with exactly its labels."""

from __future__ import annotations

import pytest
from django.test import TestCase, override_settings
from prometheus_client.parser import text_string_to_metric_families

from switchboard.services.audit import audit_record
from tests.subscriptions.support import SYSTEM

TOKEN = "scrape-me"

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
