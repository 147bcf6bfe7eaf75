"""The host endpoint page for a host's staff: its health, the delivery log
(filters, pages, live rows), and the admin's actions on them."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_GET, require_POST

from outbox.forms import EndpointForm
from outbox.models import DeliveryStatus
from outbox.selectors import endpoint_of, host_deliveries_for_host, host_delivery_get_for_host
from outbox.services import (
    host_deliveries_recover,
    host_delivery_resend,
    host_endpoint_enable,
    host_endpoint_set,
    host_endpoint_test,
)
from switchboard.actors import Actor
from switchboard.errors import DomainError
from switchboard.views.access import admin_required, staff_required
from switchboard.views.paging import page_of


@require_GET
@staff_required
def endpoint(request):
    return _endpoint_page(request)


def _endpoint_page(request, *, form=None, secret: str = "", status: int = 200):
    host = request.user.host
    rows = host_deliveries_for_host(
        host=host,
        status=request.GET.get("status") or None,
        type=request.GET.get("type") or None,
    )
    page, next_cursor = page_of(request, rows, order=("seq",))
    query = request.GET.copy()
    query.pop("cursor", None)
    context = {
        "nav": "endpoint",
        "endpoint": endpoint_of(host=host),
        "deliveries": page,
        "next_cursor": next_cursor,
        "statuses": DeliveryStatus.values,
        "filters": request.GET,
        "filter_query": query.urlencode(),
        "may_act": request.user.role == "admin",
        "form": form or EndpointForm(),
        "new_secret": secret,
    }
    template = "outbox/endpoint.html#log" if request.htmx else "outbox/endpoint.html"
    return render(request, template, context, status=status)


@require_POST
@admin_required
def endpoint_set(request):
    """Set (or change) the endpoint from the page. The new signing secret is
    shown on this answer only; the old one keeps signing for a grace period."""
    form = EndpointForm(request.POST)
    if form.is_valid():
        try:
            _, secret = host_endpoint_set(
                host=request.user.host,
                url=form.cleaned_data["url"],
                actor=Actor.for_user(request.user),
            )
        except DomainError as error:
            form.add_error("url", error.message)
        else:
            response = _endpoint_page(request, secret=secret)
            response["Cache-Control"] = "no-store"
            return response
    return _endpoint_page(request, form=form, status=422)


def _admin_only(request) -> Actor:
    if request.user.role != "admin":
        raise PermissionDenied("admins only")
    return Actor.for_user(request.user)


@require_POST
@staff_required
def endpoint_action(request, action: str):
    actor = _admin_only(request)
    host = request.user.host
    try:
        if action == "test":
            host_endpoint_test(host=host, actor=actor)
            messages.success(request, "A ping is on its way.")
        elif action == "enable":
            host_endpoint_enable(host=host, actor=actor)
            messages.success(request, "The endpoint is enabled again.")
        elif action == "recover":
            since = parse_datetime(request.POST.get("since", ""))
            if since is None:
                messages.error(request, "Give a date and time to recover from.")
            else:
                count = host_deliveries_recover(host=host, since=since, actor=actor)
                messages.success(request, f"{count} deliveries queued again.")
        else:
            raise Http404("no such action")
    except DomainError as error:
        messages.error(request, error.message)
    return redirect("outbox:endpoint")


@require_POST
@staff_required
def delivery_resend(request, delivery_id: str):
    actor = _admin_only(request)
    delivery = host_delivery_get_for_host(host=request.user.host, delivery_id=delivery_id)
    try:
        host_delivery_resend(delivery=delivery, actor=actor)
        messages.success(request, f"Delivery {delivery.public_id} queued again.")
    except DomainError as error:
        messages.error(request, error.message)
    return redirect("outbox:endpoint")
