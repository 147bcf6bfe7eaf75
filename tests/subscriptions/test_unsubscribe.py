"""An unsubscribe that cannot fail silently (docs/host-integration.md): retried with
backoff while the server refuses, visible in the API, the pages and the
ledger, and counted as done only when the server removed it (or had already
forgotten it, in the words its dialect uses)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from subscriptions.models import RefreshAttempt, Subscription
from subscriptions.services import subscription_unsubscribe
from switchboard.models import AuditEntry
from tests.subscriptions.support import approve_events, make_event_server, make_subscription


@pytest.fixture
def refusing(refserver):
    refserver.control("POST", "behaviour", {"method": "events/unsubscribe", "fail": "error"})
    yield refserver
    refserver.control("POST", "behaviour", {"method": "events/unsubscribe", "clear": True})


def _due_now(sub: Subscription) -> None:
    """The backoff has run out (instead of waiting for it)."""
    Subscription.objects.filter(pk=sub.pk).update(unsubscribe_next_at=timezone.now())


def test_a_refused_unsubscribe_is_retried_then_shown_as_failed_everywhere(
    personas, refusing, settings
):
    settings.SUBSCRIPTION_UNSUBSCRIBE_ATTEMPTS = 3
    server = make_event_server(personas.acme, url=refusing.mcp_url)
    approve_events(personas.alice, server, ["build.finished"])
    sub = make_subscription(personas.alice, server)
    api = personas.acme_api

    answer = api.delete(f"/subscriptions/{sub.id}").json()
    assert answer["status"] == "revoked"  # at once: the receiver refuses deliveries from now
    assert answer["unsubscribe"]["state"] == "pending"
    assert answer["unsubscribe"]["attempts"] == 1
    assert "-32603" in answer["unsubscribe"]["last_error"]
    sub.refresh_from_db()
    first_wait = sub.unsubscribe_next_at - timezone.now()
    assert first_wait > timedelta(0)  # backing off, not done

    _due_now(sub)
    assert subscription_unsubscribe(subscription_id=sub.id) == "retry"
    sub.refresh_from_db()
    assert sub.unsubscribe_next_at - timezone.now() > first_wait  # the wait grows
    assert subscription_unsubscribe(subscription_id=sub.id) == "skipped"  # not due yet

    _due_now(sub)
    assert subscription_unsubscribe(subscription_id=sub.id) == "failed"
    shown = api.get(f"/subscriptions/{sub.id}").json()["unsubscribe"]
    assert shown["state"] == "failed" and shown["attempts"] == 3
    assert shown["next_attempt_at"] is None
    tries = RefreshAttempt.objects.filter(subscription=sub, kind="unsubscribe")
    assert [t.ok for t in tries] == [False, False, False]
    entry = AuditEntry.objects.get(kind="subscription.unsubscribe_failed", subject_id=sub.id)
    assert "after 3 tries" in entry.summary and entry.detail["attempts"] == 3
    requests = refusing.control("GET", "received?kinds=requests")["requests"]
    assert [r["method"] for r in requests].count("events/unsubscribe") == 3  # each try was made

    admin = Client()
    admin.force_login(personas.admin)
    page = admin.get(f"/subscriptions/{sub.id}/").content.decode()
    assert 'data-unsubscribe="failed"' in page and "did not accept the unsubscribe" in page
    listing = admin.get("/staff/subscriptions/").content.decode()
    assert 'data-unsubscribe="failed"' in listing


def test_a_server_that_accepts_after_refusing_is_done_and_the_ledger_says_so(
    personas, refserver, settings
):
    refserver.control(
        "POST", "behaviour", {"method": "events/unsubscribe", "fail": "error", "times": 1}
    )
    server = make_event_server(personas.acme, url=refserver.mcp_url)
    approve_events(personas.alice, server, ["build.finished"])
    sub = make_subscription(personas.alice, server)

    answer = personas.acme_api.delete(f"/subscriptions/{sub.id}").json()
    assert answer["unsubscribe"]["state"] == "pending"
    _due_now(sub)
    # The reference server never held this row: "not found" means already gone.
    assert subscription_unsubscribe(subscription_id=sub.id) == "done"
    shown = personas.acme_api.get(f"/subscriptions/{sub.id}").json()["unsubscribe"]
    assert shown == {
        "state": "done",
        "attempts": 2,
        "last_error": shown["last_error"],
        "next_attempt_at": None,
    }
    assert AuditEntry.objects.filter(kind="subscription.unsubscribed", subject_id=sub.id).exists()
    assert subscription_unsubscribe(subscription_id=sub.id) == "skipped"  # nothing owed


def test_an_accepted_unsubscribe_needs_no_second_try(personas, refserver):
    server = make_event_server(personas.acme, url=refserver.mcp_url)
    approve_events(personas.alice, server, ["build.finished"])
    sub = make_subscription(personas.alice, server)
    answer = personas.acme_api.delete(f"/subscriptions/{sub.id}").json()
    assert answer["unsubscribe"] == {
        "state": "done",
        "attempts": 1,
        "last_error": None,
        "next_attempt_at": None,
    }
    assert not AuditEntry.objects.filter(kind__startswith="subscription.unsubscribe").exists()
