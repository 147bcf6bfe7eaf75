"""``GET /metrics`` (docs/production.md, Metrics): the Prometheus text of every
process on this machine (``switchboard.metrics``), plus the gauges that are
state, read at scrape time: subscriptions by mode and status, the Celery
queue's depth, and the tightest refresh margin of webhook subscriptions.

It lives on the top floor because those gauges read the apps' tables and
the zero-valued label sets come from what each app knows (event types,
lifecycle events, consent scopes).
"""

from __future__ import annotations

import logging

from celery import current_app
from django.conf import settings
from django.db.models import Count, Min
from django.http import HttpResponse, JsonResponse
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.views.decorators.http import require_GET
from prometheus_client.core import GaugeMetricFamily

from consent.models import Scope
from outbox.emit import HOST_EVENT_TYPES
from outbox.models import DeliveryStatus, HostDelivery
from subscriptions.models import LIVE_STATUSES, Mode, Subscription
from switchboard import metrics
from switchboard.mcp.declarations import HOOK_EVENTS
from switchboard.models import AuditDrain
from switchboard.services.audit_drain import drain_lag_seconds
from switchboard.sessions.registry import held_kinds

log = logging.getLogger(__name__)


class StateCollector:
    """The gauges that are state, read now (from PostgreSQL or SQLite, and
    the broker). A part that cannot be read is left out of this scrape and
    logged; the rest still answer."""

    def collect(self):
        yield from self._subscriptions()
        yield from self._queue_depth()
        yield from self._forwarding_lag()
        yield from self._drain_lag()

    def _drain_lag(self):
        family = GaugeMetricFamily(
            "switchboard_audit_drain_lag_seconds",
            "Age of the oldest ledger entry an audit drain has not delivered yet, "
            "the largest over the drains (0 when all are caught up or none is set).",
        )
        try:
            lag = max((drain_lag_seconds(d) for d in AuditDrain.objects.all()), default=0.0)
        except Exception:
            log.exception("metrics: the audit drains' lag could not be read")
            return
        family.add_metric([], lag)
        yield family

    def _forwarding_lag(self):
        family = GaugeMetricFamily(
            "switchboard_host_delivery_lag_seconds",
            "Age of the oldest host delivery not yet delivered (0 when none waits).",
        )
        try:
            oldest = HostDelivery.objects.filter(status=DeliveryStatus.PENDING).aggregate(
                oldest=Min("created_at")
            )["oldest"]
        except Exception:
            log.exception("metrics: the forwarding lag could not be read")
            return
        lag = (timezone.now() - oldest).total_seconds() if oldest else 0.0
        family.add_metric([], max(lag, 0.0))
        yield family

    def _subscriptions(self):
        family = GaugeMetricFamily(
            "switchboard_subscriptions",
            "Event subscriptions, by mode and status.",
            labels=["mode", "status"],
        )
        margin = GaugeMetricFamily(
            "switchboard_subscription_refresh_margin_seconds",
            "Seconds until the live webhook subscription closest to its deadline must be "
            "refreshed (negative: it is late, and lapses when the server's grant ends).",
        )
        try:
            rows = Subscription.objects.values("mode", "status").annotate(n=Count("id"))
            counts = {(row["mode"], row["status"]): row["n"] for row in rows}
            soonest = Subscription.objects.filter(
                mode=Mode.WEBHOOK, status__in=LIVE_STATUSES, refresh_before__isnull=False
            ).aggregate(soonest=Min("refresh_before"))["soonest"]
        except Exception:
            log.exception("metrics: subscriptions could not be read")
            return
        for mode in Mode.values:
            for status in {s for m, s in counts if m == mode} | {"active"}:
                family.add_metric([mode, status], counts.get((mode, status), 0))
        yield family
        # No live webhook subscription: the family is declared, without a sample.
        if soonest is not None:
            margin.add_metric([], (soonest - timezone.now()).total_seconds())
        yield margin

    def _queue_depth(self):
        family = GaugeMetricFamily(
            "switchboard_queue_depth", "Tasks waiting in the Celery queue.", labels=["queue"]
        )
        queue = current_app.conf.task_default_queue
        try:
            with current_app.connection_for_read() as conn:
                depth = conn.default_channel.client.llen(queue)
        except Exception:
            log.exception("metrics: the queue's depth could not be read")
            return
        family.add_metric([queue], depth)
        yield family


def known_label_sets() -> dict:
    """What the apps know in advance, exposed as zeros from the first scrape."""
    return {
        metrics.host_deliveries: [
            {"type": t, "outcome": o}
            for t in sorted(HOST_EVENT_TYPES)
            for o in ("delivered", "failed", "gave_up")
        ],
        metrics.lifecycle_events: [
            {"event": e, "outcome": o} for e in HOOK_EVENTS for o in ("fired", "none", "refused")
        ],
        metrics.consent_decisions: [
            {"scope": s, "decision": d}
            for s in Scope.values
            for d in ("allowed", "denied", "revoked", "expired")
        ],
        metrics.held_streams: [{"kind": k} for k in held_kinds()],
    }


_state = StateCollector()
_zeros_done = False


def _authorized(request) -> bool:
    given = request.headers.get("Authorization", "")
    scheme, _, token = given.partition(" ")
    return scheme.lower() == "bearer" and constant_time_compare(token, settings.METRICS_TOKEN)


@require_GET
def metrics_view(request):
    """404 when METRICS_TOKEN is empty (off), 401 without the right bearer token."""
    global _zeros_done
    if not settings.METRICS_TOKEN:
        return JsonResponse(
            {"error": {"code": "not_found", "message": "metrics are off (METRICS_TOKEN unset)"}},
            status=404,
        )
    if not _authorized(request):
        response = JsonResponse(
            {
                "error": {
                    "code": "unauthorized",
                    "message": "a bearer token (METRICS_TOKEN) is required",
                }
            },
            status=401,
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    if not _zeros_done:
        metrics.zeros_expose(known_label_sets())
        _zeros_done = True
    metrics.seen("web")
    body, content_type = metrics.scrape([_state])
    return HttpResponse(body, content_type=content_type)
