"""The host endpoint and its delivery log over the API (contract: Host endpoint)."""

from __future__ import annotations

from ninja import Router, Status

from outbox.schemas import (
    AcceptedOut,
    DeliveryPage,
    EndpointCreatedOut,
    EndpointIn,
    EndpointOut,
    RecoverIn,
)
from outbox.selectors import host_deliveries_for_host, host_delivery_get_for_host
from outbox.services import (
    host_deliveries_recover,
    host_delivery_resend,
    host_endpoint_enable,
    host_endpoint_get,
    host_endpoint_set,
    host_endpoint_test,
)
from switchboard.api.pagination import paginate
from switchboard.api.params import PageLimit, Timestamp
from switchboard.api.schemas import ErrorOut

router = Router(tags=["host endpoint"])
ERRORS = {400: ErrorOut, 401: ErrorOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut}


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
    since: Timestamp | None = None,
    cursor: str | None = None,
    limit: PageLimit | None = None,
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
