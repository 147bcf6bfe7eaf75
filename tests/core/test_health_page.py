"""The staff health page (switchboard/README.md): deliveries, conversations and injected
characters drawn as SVG that reads without colour, with the same figures as
text; auditors see it too; end users do not."""

from __future__ import annotations

from datetime import timedelta

from django.test import Client
from django.utils import timezone

from consent.models import Injection
from outbox.models import DeliveryAttempt, HostDelivery
from tests.subscriptions.support import make_event_server, make_subscription


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_health_page_draws_deliveries_conversations_and_injected_text(personas):
    server = make_event_server(personas.acme, name="Builds")
    sub = make_subscription(personas.alice, server)
    for status_code in (200, 200, 500):
        delivery = HostDelivery.objects.create(
            host=personas.acme, stream=sub.id, type="event.received", body={}
        )
        DeliveryAttempt.objects.create(
            delivery=delivery, status_code=status_code, completed_at=timezone.now()
        )
    for outcome, chars in (("ok", 120), ("timeout", 0)):
        Injection.objects.create(
            created_at=timezone.now() - timedelta(minutes=5),
            host=personas.acme,
            user=personas.alice,
            server=server,
            conversation_id="c",
            message_id=f"m-{outcome}",
            source="console",
            outcome=outcome,
            chars=chars,
        )
    page = _signed_in(personas.auditor).get("/staff/health/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-delivered="2"' in html and 'data-failed="1"' in html and "(33 % failed)" in html
    # Per server: the subscription's server by name, with its failure rate as text.
    assert "<td>Builds</td><td>2</td><td>1</td><td>33 %</td>" in html
    # Conversations: answered and timed out, as text and as a bar with its figures.
    assert "Builds: 1 answered, 1 timed out, 0 other" in html
    assert "120 characters in the last 14 days" in html
    # Charts tell kinds apart by pattern, and name them in a legend.
    assert 'fill="url(#chart-hatch)"' in html and "failed</li>" in html
    assert 'role="img"' in html and 'aria-label="Delivery attempts per minute' in html
    # Live: the region follows the outbox's delivery topic.
    assert 'data-live-region="deliveries' in html


def test_end_users_do_not_see_the_health_page(personas):
    assert _signed_in(personas.alice).get("/staff/health/").status_code in (302, 403)


def test_a_chart_with_nothing_to_draw_says_so_instead_of_an_axis_of_one(personas):
    html = _signed_in(personas.admin).get("/staff/health/").content.decode()
    assert "No delivery attempts in the last 30 minutes." in html
    assert "No context injected in the last 14 days." in html
    assert html.count("data-chart-empty") == 2
    # No scale invented for an empty chart (it used to read "1").
    assert 'class="chart-axis">1</text>' not in html
    assert 'aria-label="Delivery attempts per minute' in html  # still named for readers
