"""The webhook receiver view and the subscription pages (htmx).

Each view: parse → authorize (selectors scope to the signed-in user or their
host's staff; foreign ids are 404) → call one service → render.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import close_old_connections
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.dateparse import parse_datetime
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from subscriptions.models import DeliveryStatus, HostEndpoint, SubscriptionStatus
from subscriptions.selectors import (
    deliveries_of_subscription,
    host_deliveries_for_host,
    host_delivery_get_for_host,
    may_see_payloads,
    received_of,
    refreshes_of,
    subscription_get_for_viewer,
    subscriptions_for_host,
    subscriptions_of_user,
)
from subscriptions.services import (
    host_deliveries_recover,
    host_delivery_resend,
    host_endpoint_enable,
    host_endpoint_set,
    host_endpoint_test,
    subscription_pause,
    subscription_resume,
    subscription_revoke,
    subscription_rotate_secret,
    webhook_receive,
)
from subscriptions.services.receiver import page_updates_send
from switchboard.actors import Actor
from switchboard.api.pagination import paginate
from switchboard.errors import DomainError, NotFound
from switchboard.forms import EndpointForm
from switchboard.models import McpServer, User
from switchboard.views.access import admin_required, login_required_page, staff_required


def _receive_in_worker_thread(**kwargs):
    # The default executor's threads keep their own connection across
    # requests; drop one that broke or outlived CONN_MAX_AGE first.
    close_old_connections()
    return webhook_receive(**kwargs)


# Not thread-sensitive: Django would otherwise start a fresh thread (and a new
# database connection) for every request. Its own pool, sized by a setting, so
# slow commits never starve other sync work of the loop's default executor.
# Also used by subscriptions.asgi.
_pool = ThreadPoolExecutor(
    max_workers=settings.WEBHOOK_RECEIVER_THREADS, thread_name_prefix="webhook-receiver"
)
receive_in_worker_thread = sync_to_async(
    _receive_in_worker_thread, thread_sensitive=False, executor=_pool
)


@csrf_exempt
@require_POST
async def webhook(request, token: str):
    """``POST /webhooks/mcp/<token>`` when served without ``subscriptions.asgi``
    in front (which answers it before Django does): see ``services/receiver.py``."""
    headers = {name.lower(): value for name, value in request.headers.items()}
    answer = await receive_in_worker_thread(token=token, headers=headers, body=request.body)
    await page_updates_send(answer.page_updates)
    if answer.body is None:
        response = HttpResponse(status=answer.status)
    else:
        response = JsonResponse(answer.body, status=answer.status)
    for name, value in answer.headers.items():
        response[name] = value
    return response


# --- the user's pages (staff see their host's) ---------------------------------------


def _page(rows, request, order=("created_at", "pk")):
    try:
        return paginate(rows, cursor=request.GET.get("cursor"), limit=50, order=order)
    except DomainError:
        return paginate(rows, cursor=None, limit=50, order=order)


@require_GET
@login_required_page
def subscription_list(request):
    if request.user.is_host_staff:
        return redirect("subscriptions:staff-list")
    rows, next_cursor = _page(subscriptions_of_user(user=request.user), request)
    return render(
        request,
        "subscriptions/list.html",
        {"nav": "subscriptions", "subs": rows, "next_cursor": next_cursor, "staff_view": False},
    )


@require_GET
@login_required_page
def subscription_detail(request, subscription_id: str):
    sub = _viewable(request, subscription_id)
    context = {
        "nav": "subscriptions",
        "sub": sub,
        "show_payload": may_see_payloads(viewer=request.user, subscription=sub),
        "received": list(received_of(subscription=sub)[:100]),
        "refreshes": list(refreshes_of(subscription=sub)[:50]),
        "deliveries": list(deliveries_of_subscription(subscription=sub).order_by("-seq")[:50]),
        "may_act": _may_act(request.user, sub),
    }
    return render(request, "subscriptions/detail.html", context)


def _viewable(request, subscription_id: str):
    try:
        return subscription_get_for_viewer(viewer=request.user, subscription_id=subscription_id)
    except NotFound:
        raise Http404("no such subscription") from None


def _may_act(user: User, sub) -> bool:
    """The user on their own subscriptions, and host admins (auditors only read)."""
    return user.id == sub.user_id or user.role == "admin"


_ACTIONS = {
    "revoke": lambda sub, actor: subscription_revoke(
        subscription=sub, actor=actor, reason="revoked_in_console"
    ),
    "pause": lambda sub, actor: subscription_pause(subscription=sub, actor=actor),
    "resume": lambda sub, actor: subscription_resume(subscription=sub, actor=actor),
    "rotate": lambda sub, actor: subscription_rotate_secret(subscription=sub, actor=actor),
}


@require_POST
@login_required_page
def subscription_action(request, subscription_id: str, action: str):
    sub = _viewable(request, subscription_id)
    if action not in _ACTIONS:
        raise Http404("no such action")
    if not _may_act(request.user, sub):
        raise PermissionDenied("read-only role")
    try:
        sub = _ACTIONS[action](sub, Actor.for_user(request.user))
    except DomainError as error:
        messages.error(request, error.message)
    if request.htmx:
        return render(request, "subscriptions/row.html", {"sub": sub})
    return redirect("subscriptions:detail", subscription_id=sub.id)


# --- staff -------------------------------------------------------------------------


@require_GET
@staff_required
def staff_subscription_list(request):
    host = request.user.host
    user_id = None
    external_id = request.GET.get("user", "").strip()
    if external_id:
        match = User.objects.filter(host=host, external_id=external_id).first()
        user_id = match.id if match else "-none-"
    rows = subscriptions_for_host(
        host=host,
        user_id=user_id,
        server_id=request.GET.get("server") or None,
        status=request.GET.get("status") or None,
        event=request.GET.get("event") or None,
    )
    page, next_cursor = _page(rows, request)
    query = request.GET.copy()
    query.pop("cursor", None)
    context = {
        "nav": "subscriptions",
        "subs": page,
        "next_cursor": next_cursor,
        "staff_view": True,
        "statuses": SubscriptionStatus.values,
        "servers": McpServer.objects.filter(host=host, deleted_at__isnull=True),
        "filters": request.GET,
        "filter_query": query.urlencode(),
    }
    template = "subscriptions/list.html#results" if request.htmx else "subscriptions/list.html"
    return render(request, template, context)


@require_GET
@staff_required
def staff_endpoint(request):
    return _endpoint_page(request)


def _endpoint_page(request, *, form=None, secret: str = "", status: int = 200):
    host = request.user.host
    rows = host_deliveries_for_host(
        host=host,
        status=request.GET.get("status") or None,
        type=request.GET.get("type") or None,
    )
    page, next_cursor = _page(rows, request, order=("seq",))
    query = request.GET.copy()
    query.pop("cursor", None)
    context = {
        "nav": "endpoint",
        "endpoint": HostEndpoint.objects.filter(host=host).first(),
        "deliveries": page,
        "next_cursor": next_cursor,
        "statuses": DeliveryStatus.values,
        "filters": request.GET,
        "filter_query": query.urlencode(),
        "may_act": request.user.role == "admin",
        "form": form or EndpointForm(),
        "new_secret": secret,
    }
    template = "subscriptions/endpoint.html#log" if request.htmx else "subscriptions/endpoint.html"
    return render(request, template, context, status=status)


@require_POST
@admin_required
def staff_endpoint_set(request):
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
def staff_endpoint_action(request, action: str):
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
    return redirect("subscriptions:staff-endpoint")


@require_POST
@staff_required
def staff_delivery_resend(request, delivery_id: str):
    actor = _admin_only(request)
    try:
        delivery = host_delivery_get_for_host(host=request.user.host, delivery_id=delivery_id)
        host_delivery_resend(delivery=delivery, actor=actor)
        messages.success(request, f"Delivery {delivery.public_id} queued again.")
    except NotFound:
        raise Http404("no such delivery") from None
    except DomainError as error:
        messages.error(request, error.message)
    return redirect("subscriptions:staff-endpoint")
