"""Pull delivery is forwarding: a host that pulls its deliveries
(``GET /subscriptions/{id}/events``) is handed a subscription's events only
while the user's consent holds at the pull (``consent.enforce``, through the
outbox's forward gate, as when rows are POSTed to an endpoint).

The faults are those a revoke's or a block's own withdrawal
(``stream_events_withdraw``) cannot see: the grant's expiry passing before
the sweep ends what it covered, and a revoke or block committed while the
event's row was being written (here: the grant or the server changed in the
database, no withdrawal run). Acme has no endpoint, so the rows wait to be
pulled (``no_endpoint``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from consent.enforce import CONSENT_UNAVAILABLE
from consent.models import Grant, GrantStatus
from outbox.models import DeliveryStatus, HostDelivery
from subscriptions.models import Subscription, SubscriptionStatus
from subscriptions.services import webhook_receive
from switchboard.models import McpServer
from tests.consent.support import ConsentStore
from tests.subscriptions.support import (
    approve_events,
    event_body,
    make_event_server,
    make_subscription,
    signed,
)


@pytest.fixture
def store(transactional_db) -> Iterator[ConsentStore]:
    store = ConsentStore()
    yield store
    store.put_back()


def _received(personas, events: int = 2):
    """Alice's webhook subscription with ``events`` events received and
    waiting to be pulled; her grant."""
    server = make_event_server(personas.acme)
    grant = approve_events(personas.alice, server, ["build.finished"])
    sub = make_subscription(personas.alice, server, status=SubscriptionStatus.ACTIVE)
    Subscription.objects.filter(pk=sub.pk).update(remote_id="sub_remote")
    for n in range(events):
        headers, raw = signed(sub.secret, event_body(f"evt_{n}", cursor=str(n), repo="acme/secret"))
        assert webhook_receive(token=sub.token, headers=headers, body=raw).status == 200
    rows = HostDelivery.objects.filter(stream=sub.pk, type="event.received")
    assert rows.count() == events
    assert set(rows.values_list("status", flat=True)) == {DeliveryStatus.NO_ENDPOINT}
    return sub, grant


def _pull(personas, sub, **params):
    query = "&".join(f"{name}={value}" for name, value in params.items())
    return personas.acme_api.get(f"/subscriptions/{sub.pk}/events?{query}")


def _event_data(page: dict) -> list:
    return [i["data"]["event"]["data"] for i in page["items"]]


def _gone(fault: str, grant: Grant) -> None:
    if fault == "revoked":
        Grant.objects.filter(pk=grant.pk).update(status=GrantStatus.REVOKED)
    elif fault == "lapsed":
        Grant.objects.filter(pk=grant.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    else:
        McpServer.objects.filter(pk=grant.server_id).update(blocked_at=timezone.now())


@pytest.mark.parametrize(
    ("fault", "reason"),
    [("revoked", "no_consent"), ("lapsed", "no_consent"), ("blocked", "server_blocked")],
)
def test_events_whose_consent_is_gone_at_the_pull_are_not_handed_over_and_withdrawn(
    personas, fault, reason
):
    sub, grant = _received(personas)
    _gone(fault, grant)
    answer = _pull(personas, sub)
    assert answer.status_code == 200, answer.content
    assert len(answer.json()["items"]) == 2  # in order, their places kept...
    assert _event_data(answer.json()) == [None, None]  # ...but not their data
    for row in HostDelivery.objects.filter(stream=sub.pk, type="event.received"):
        # Withdrawn as the sender withdraws: never sent, data gone for good.
        assert (row.status, row.last_error_category) == (DeliveryStatus.FAILED, reason)
        assert row.body["data"]["event"]["data"] is None
    assert _event_data(_pull(personas, sub).json()) == [None, None]


def test_an_unreadable_store_hands_over_nothing_and_loses_nothing(tpersonas, store):
    sub, _ = _received(tpersonas)
    store.take_away()
    answer = _pull(tpersonas, sub)
    store.put_back()
    assert answer.status_code == 503, answer.content
    assert answer.json()["error"]["code"] == CONSENT_UNAVAILABLE
    assert "nothing is lost" in answer.json()["error"]["message"]
    rows = HostDelivery.objects.filter(stream=sub.pk, type="event.received")
    assert {(r.status, r.last_error_category) for r in rows} == {(DeliveryStatus.NO_ENDPOINT, "")}
    # Consent readable again: the same page, with the events' data.
    later = _pull(tpersonas, sub)
    assert later.status_code == 200, later.content
    assert _event_data(later.json()) == [{"repo": "acme/secret"}] * 2


def _pull_statements(personas, sub, **params) -> tuple[list[str], dict]:
    with CaptureQueriesContext(connection) as captured:
        answer = _pull(personas, sub, **params)
    assert answer.status_code == 200, answer.content
    statements = [
        q["sql"]
        for q in captured.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "BEGIN", "COMMIT"))
    ]
    return statements, answer.json()


def test_a_pull_with_consent_hands_over_the_events_for_two_statements_more_a_page(personas):
    sub, _ = _received(personas, events=6)
    small, first = _pull_statements(personas, sub, limit=1)
    large, page = _pull_statements(personas, sub, after=first["next_after"], limit=5)
    assert _event_data(first) == [{"repo": "acme/secret"}]
    assert _event_data(page) == [{"repo": "acme/secret"}] * 5
    # One page or five rows, the same statements: the consent check is one
    # statement, after one for the rows' subscriptions (the forward gate's).
    assert len(small) == len(large), "\n".join(large)
    assert len([s for s in large if "consent_grant" in s]) == 1, "\n".join(large)
    rows = HostDelivery.objects.filter(stream=sub.pk, type="event.received")
    assert set(rows.values_list("status", flat=True)) == {DeliveryStatus.NO_ENDPOINT}
