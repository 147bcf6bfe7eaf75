"""What the outbox shows live on the staff endpoint page: the endpoint's
health panel and single rows of the delivery log, as out-of-band swaps."""

from __future__ import annotations

from django.template.loader import render_to_string

from outbox.models import HostDelivery, HostEndpoint
from switchboard.broadcast import broadcast_html, broadcast_topics


def endpoint_changed(host_id: str) -> None:
    endpoint = HostEndpoint.objects.filter(host_id=host_id).first()
    html = render_to_string("outbox/oob_endpoint.html", {"endpoint": endpoint})
    broadcast_html(html=html, host_id=host_id, staff=True)


def delivery_changed(delivery: HostDelivery) -> None:
    deliveries_changed([delivery])


def deliveries_changed(deliveries: list[HostDelivery]) -> None:
    """The rows' new state on the log, one message per host (out-of-band
    swaps of several rows travel together)."""
    by_host: dict[str, list[HostDelivery]] = {}
    for delivery in deliveries:
        by_host.setdefault(delivery.host_id, []).append(delivery)
    for host_id, rows in by_host.items():
        html = "".join(
            render_to_string("outbox/oob_delivery.html", {"delivery": row}) for row in rows
        )
        broadcast_html(html=html, host_id=host_id, staff=True)
        # The health page's charts re-read themselves (coalesced per burst).
        broadcast_topics(topics=["deliveries"], host_id=host_id, staff=True)
