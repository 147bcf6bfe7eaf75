"""Event subscriptions and the host endpoint over the API (contract: Event
subscriptions, Host endpoint)."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime

from ninja import Router, Status

from subscriptions.schemas import (
    AcceptedOut,
    DeliveryPage,
    EndpointCreatedOut,
    EndpointIn,
    EndpointOut,
    PulledPage,
    RecoverIn,
    RevokedOut,
    SubscriptionIn,
    SubscriptionOut,
    SubscriptionPage,
)
from subscriptions.selectors import (
    host_deliveries_for_host,
    host_delivery_get_for_host,
    pulled_deliveries,
    subscription_get_for_host,
    subscriptions_for_host,
)
from subscriptions.services import (
    host_deliveries_recover,
    host_delivery_resend,
    host_endpoint_enable,
    host_endpoint_get,
    host_endpoint_set,
    host_endpoint_test,
    subscription_create,
    subscription_pause,
    subscription_resume,
    subscription_revoke,
    subscription_rotate_secret,
)
from switchboard.api.pagination import clamp_limit, paginate
from switchboard.api.schemas import ErrorOut
from switchboard.errors import DomainError
from switchboard.models import User
from switchboard.selectors import server_get_for_host, user_get_for_host

router = Router(tags=["subscriptions"])
ERRORS = {401: ErrorOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut}


@router.post("/subscriptions", response={200: SubscriptionOut, 201: SubscriptionOut, **ERRORS})
def create_subscription(request, payload: SubscriptionIn):
    user = user_get_for_host(host=request.host, external_id=payload.user)
    server = server_get_for_host(host=request.host, server_id=payload.server)
    sub, created = subscription_create(
        user=user,
        server=server,
        event=payload.event,
        arguments=payload.arguments,
        delivery=payload.delivery,
        ttl_ms=payload.ttl_ms if "ttl_ms" in payload.model_fields_set else ...,
        max_age_ms=payload.max_age_ms,
        actor=request.actor,
    )
    return Status(201 if created else 200, sub)


@router.get("/subscriptions", response={200: SubscriptionPage, **ERRORS})
def list_subscriptions(
    request,
    user: str | None = None,
    server: str | None = None,
    status: str | None = None,
    cursor: str | None = None,
    limit: int | None = None,
):
    user_id = None
    if user is not None:
        match = User.objects.filter(host=request.host, external_id=user).first()
        user_id = match.id if match else "-none-"  # an unknown user simply has none
    rows = subscriptions_for_host(
        host=request.host, user_id=user_id, server_id=server, status=status
    )
    items, next_cursor = paginate(rows, cursor=cursor, limit=limit)
    return {"items": items, "next_cursor": next_cursor}


@router.get("/subscriptions/{subscription_id}", response={200: SubscriptionOut, **ERRORS})
def get_subscription(request, subscription_id: str):
    return subscription_get_for_host(host=request.host, subscription_id=subscription_id)


@router.delete("/subscriptions/{subscription_id}", response={200: RevokedOut, **ERRORS})
def revoke_subscription(request, subscription_id: str):
    sub = subscription_get_for_host(host=request.host, subscription_id=subscription_id)
    sub = subscription_revoke(subscription=sub, actor=request.actor, reason="revoked_by_host")
    return {"id": sub.id, "status": sub.status}


@router.post(
    "/subscriptions/{subscription_id}/rotate-secret", response={200: SubscriptionOut, **ERRORS}
)
def rotate_secret(request, subscription_id: str):
    sub = subscription_get_for_host(host=request.host, subscription_id=subscription_id)
    return subscription_rotate_secret(subscription=sub, actor=request.actor)


@router.post("/subscriptions/{subscription_id}/pause", response={200: SubscriptionOut, **ERRORS})
def pause_subscription(request, subscription_id: str):
    sub = subscription_get_for_host(host=request.host, subscription_id=subscription_id)
    return subscription_pause(subscription=sub, actor=request.actor)


@router.post("/subscriptions/{subscription_id}/resume", response={200: SubscriptionOut, **ERRORS})
def resume_subscription(request, subscription_id: str):
    sub = subscription_get_for_host(host=request.host, subscription_id=subscription_id)
    return subscription_resume(subscription=sub, actor=request.actor)


def _encode_after(seq: int) -> str:
    return base64.urlsafe_b64encode(f"d:{seq}".encode()).decode().rstrip("=")


def _decode_after(value: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode()
        prefix, _, number = raw.partition(":")
        if prefix != "d" or not number.isdigit():
            raise ValueError
        return int(number)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise DomainError(
            "after is not a position this API issued", field="after", code="invalid_cursor"
        ) from None


@router.get("/subscriptions/{subscription_id}/events", response={200: PulledPage, **ERRORS})
def pull_events(request, subscription_id: str, after: str | None = None, limit: int | None = None):
    """Pull delivery: the same bodies the host endpoint receives, in order."""
    sub = subscription_get_for_host(host=request.host, subscription_id=subscription_id)
    size = clamp_limit(limit)
    rows = pulled_deliveries(
        subscription=sub, after=_decode_after(after) if after else None, limit=size
    )
    items = [{**row.body, "webhook_id": row.webhook_id} for row in rows]
    next_after = _encode_after(rows[-1].seq) if rows else after
    return {"items": items, "next_after": next_after}


# --- the host endpoint ----------------------------------------------------------------


@router.put("/host/endpoint", response={200: EndpointCreatedOut, **ERRORS})
def put_endpoint(request, payload: EndpointIn):
    endpoint, secret = host_endpoint_set(host=request.host, url=payload.url, actor=request.actor)
    return {"url": endpoint.url, "secret": secret}


@router.get("/host/endpoint", response={200: EndpointOut, **ERRORS})
def get_endpoint(request):
    return host_endpoint_get(host=request.host)


@router.post("/host/endpoint/test", response={202: AcceptedOut, **ERRORS})
def test_endpoint(request):
    host_endpoint_test(host=request.host, actor=request.actor)
    return Status(202, {"status": "accepted"})


@router.post("/host/endpoint/enable", response={200: EndpointOut, **ERRORS})
def enable_endpoint(request):
    return host_endpoint_enable(host=request.host, actor=request.actor)


@router.get("/host/deliveries", response={200: DeliveryPage, **ERRORS})
def list_deliveries(
    request,
    status: str | None = None,
    type: str | None = None,
    since: datetime | None = None,
    cursor: str | None = None,
    limit: int | None = None,
):
    rows = host_deliveries_for_host(host=request.host, status=status, type=type, since=since)
    items, next_cursor = paginate(rows, cursor=cursor, limit=limit, order=("seq",))
    return {"items": items, "next_cursor": next_cursor}


@router.post("/host/deliveries/recover", response={202: AcceptedOut, **ERRORS})
def recover_deliveries(request, payload: RecoverIn):
    count = host_deliveries_recover(host=request.host, since=payload.since, actor=request.actor)
    return Status(202, {"status": "accepted", "count": count})


@router.post("/host/deliveries/{delivery_id}/resend", response={202: AcceptedOut, **ERRORS})
def resend_delivery(request, delivery_id: str):
    delivery = host_delivery_get_for_host(host=request.host, delivery_id=delivery_id)
    host_delivery_resend(delivery=delivery, actor=request.actor)
    return Status(202, {"status": "accepted"})
