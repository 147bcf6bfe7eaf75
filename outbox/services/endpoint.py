"""The host's endpoint: set (with a fresh secret), enable, disable, test, and
send again what it missed (one delivery, or everything since a moment)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from outbox import live
from outbox.emit import host_event_emit
from outbox.models import DeliveryStatus, EndpointStatus, HostDelivery, HostEndpoint
from outbox.services.rows import requeue
from outbox.signing import webhook_secret_new
from switchboard.actors import Actor
from switchboard.crypto import encrypt_text
from switchboard.errors import Conflict, NotFound
from switchboard.models import Host
from switchboard.outbound_urls import outbound_url_checked
from switchboard.services.audit import audit_record

SYSTEM = Actor.system("forwarding")
# Rows a recover may send: not delivered and not waiting on something else.
_RECOVERABLE = (DeliveryStatus.FAILED, DeliveryStatus.NO_ENDPOINT, DeliveryStatus.DISABLED)


@transaction.atomic
def host_endpoint_set(*, host: Host, url: str, actor: Actor) -> tuple[HostEndpoint, str]:
    """Set the endpoint URL with a fresh secret (returned once); the previous
    secret keeps signing for HOST_ENDPOINT_SECRET_GRACE."""
    url = outbound_url_checked(url)
    secret = webhook_secret_new()
    now = timezone.now()
    endpoint = HostEndpoint.objects.select_for_update(no_key=True).filter(host=host).first()
    if endpoint is None:
        endpoint = HostEndpoint(host=host, url=url, secret_encrypted=encrypt_text(secret))
    else:
        endpoint.previous_secret_encrypted = endpoint.secret_encrypted
        endpoint.previous_secret_until = now + timedelta(
            seconds=settings.HOST_ENDPOINT_SECRET_GRACE
        )
        endpoint.url = url
        endpoint.secret_encrypted = encrypt_text(secret)
    endpoint.save()
    audit_record(
        host_id=host.id,
        kind="host_endpoint.set",
        actor=actor,
        summary=f"Host endpoint set to {url[:200]} with a new signing secret",
        subject_type="host_endpoint",
        subject_id=host.id,
    )
    live.endpoint_changed(host.id)
    return endpoint, secret


def host_endpoint_get(*, host: Host) -> HostEndpoint:
    endpoint = HostEndpoint.objects.filter(host=host).first()
    if endpoint is None:
        raise NotFound("no endpoint is configured for this host", code="no_endpoint")
    return endpoint


@transaction.atomic
def host_endpoint_enable(*, host: Host, actor: Actor) -> HostEndpoint:
    """Re-enable; what piled up while disabled is sent again."""
    endpoint = HostEndpoint.objects.select_for_update(no_key=True).filter(host=host).first()
    if endpoint is None:
        raise NotFound("no endpoint is configured for this host", code="no_endpoint")
    if endpoint.status == EndpointStatus.ACTIVE:
        return endpoint
    endpoint.status = EndpointStatus.ACTIVE
    endpoint.disabled_reason = ""
    endpoint.disabled_at = None
    endpoint.failing_since = None
    endpoint.save()
    requeue(HostDelivery.objects.filter(host=host, status=DeliveryStatus.DISABLED))
    audit_record(
        host_id=host.id,
        kind="host_endpoint.enabled",
        actor=actor,
        summary="Host endpoint re-enabled; deliveries held while it was disabled are being sent",
        subject_type="host_endpoint",
        subject_id=host.id,
    )
    live.endpoint_changed(host.id)
    return endpoint


def endpoint_disable(endpoint: HostEndpoint, *, reason: str) -> None:
    """Inside a transaction: stop sending, tell the host's staff."""
    endpoint.status = EndpointStatus.DISABLED
    endpoint.disabled_reason = reason[:200]
    endpoint.disabled_at = timezone.now()
    endpoint.save()
    HostDelivery.objects.filter(host_id=endpoint.host_id, status=DeliveryStatus.PENDING).update(
        status=DeliveryStatus.DISABLED, claimed_until=None
    )
    audit_record(
        host_id=endpoint.host_id,
        kind="host_endpoint.disabled",
        actor=SYSTEM,
        summary=f"Host endpoint disabled: {reason[:200]}. Deliveries wait until it is re-enabled.",
        subject_type="host_endpoint",
        subject_id=endpoint.host_id,
        detail={"reason": reason[:200]},
    )
    live.endpoint_changed(endpoint.host_id)


@transaction.atomic
def host_endpoint_test(*, host: Host, actor: Actor) -> HostDelivery:
    host_endpoint_get(host=host)
    delivery = host_event_emit(host_id=host.id, type="ping", data={})
    audit_record(
        host_id=host.id,
        kind="host_endpoint.tested",
        actor=actor,
        summary="Test ping sent to the host endpoint",
        subject_type="host_delivery",
        subject_id=delivery.public_id,
    )
    return delivery


@transaction.atomic
def host_delivery_resend(*, delivery: HostDelivery, actor: Actor) -> HostDelivery:
    """Send one delivery again (same webhook-id), whatever its status."""
    endpoint = host_endpoint_get(host=delivery.host)
    if endpoint.status != EndpointStatus.ACTIVE:
        raise Conflict("the endpoint is disabled; enable it first", code="endpoint_disabled")
    requeue(HostDelivery.objects.filter(seq=delivery.seq))
    audit_record(
        host_id=delivery.host_id,
        kind="host_delivery.resent",
        actor=actor,
        summary=f"Delivery {delivery.public_id} ({delivery.type}) queued to be sent again",
        subject_type="host_delivery",
        subject_id=delivery.public_id,
    )
    delivery.refresh_from_db()
    return delivery


@transaction.atomic
def host_deliveries_recover(*, host: Host, since: datetime, actor: Actor) -> int:
    """Send again every delivery since ``since`` that did not arrive (failed,
    recorded without an endpoint, or held by a disabled endpoint)."""
    endpoint = host_endpoint_get(host=host)
    if endpoint.status != EndpointStatus.ACTIVE:
        raise Conflict("the endpoint is disabled; enable it first", code="endpoint_disabled")
    count = requeue(
        HostDelivery.objects.filter(host=host, status__in=_RECOVERABLE, created_at__gte=since)
    )
    audit_record(
        host_id=host.id,
        kind="host_delivery.recovered",
        actor=actor,
        summary=f"{count} undelivered deliveries since {since:%Y-%m-%d %H:%M:%S} queued again",
        subject_type="host_endpoint",
        subject_id=host.id,
        detail={"since": since.isoformat(), "count": count},
    )
    return count
