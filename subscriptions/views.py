"""The webhook receiver view and the subscription pages (htmx).

Each view: parse → authorize (selectors scope to the signed-in user or their
host's staff; foreign ids are 404) → call one service → render.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import close_old_connections
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from outbox.selectors import deliveries_of_stream
from subscriptions.models import SubscriptionStatus
from subscriptions.selectors import (
    may_see_payloads,
    push_streams_summary,
    received_of,
    refreshes_of,
    subscription_get_for_viewer,
    subscriptions_for_host,
    subscriptions_of_user,
    task_watches_of,
    with_stream_health,
)
from subscriptions.services import (
    subscription_pause,
    subscription_resume,
    subscription_revoke,
    subscription_rotate_secret,
    webhook_receive,
)
from subscriptions.services.receiver import page_updates_send
from switchboard.actors import Actor
from switchboard.errors import DomainError
from switchboard.mcp.mcpe import mcpe_can_pause
from switchboard.models import User
from switchboard.selectors import servers_for_host, user_id_to_filter_by
from switchboard.views.access import login_required_page, staff_required
from switchboard.views.paging import page_of


def _receive_in_worker_thread(**kwargs):
    # These threads outlive requests, and so would their connections: drop
    # one that broke first, and hand it back afterwards (to the pool, on
    # PostgreSQL), so idle threads do not pin connections others wait for.
    close_old_connections()
    try:
        return webhook_receive(**kwargs)
    finally:
        close_old_connections()


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
    in front (which answers it before Django does): see ``services/receiver/``."""
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


# How long servers may cache the receiver document: short, so moving or
# closing the receiver is honoured soon.
RECEIVER_DOCUMENT_MAX_AGE = 300


@require_GET
def receiver_document(request):
    """``/.well-known/mcp-webhook-receiver.json`` (SEP-3415 "Endpoint
    verification"; docs/events-client.md §4): the path prefix under which
    this origin receives webhooks, so a server may skip the challenge. It
    still answers every challenge."""
    prefix = urlsplit(settings.PUBLIC_BASE_URL).path.rstrip("/") + "/webhooks/mcp/"
    response = JsonResponse({"receivers": [prefix]})
    response["Cache-Control"] = f"public, max-age={RECEIVER_DOCUMENT_MAX_AGE}"
    return response


# --- the user's pages (staff see their host's) ---------------------------------------


@require_GET
@login_required_page
def subscription_list(request):
    if request.user.is_host_staff:
        return redirect("subscriptions:staff-list")
    rows, next_cursor = page_of(request, subscriptions_of_user(user=request.user))
    return render(
        request,
        "subscriptions/list.html",
        {
            "nav": "subscriptions",
            "subs": with_stream_health(rows),
            "next_cursor": next_cursor,
            "staff_view": False,
        },
    )


@require_GET
@login_required_page
def subscription_detail(request, subscription_id: str):
    sub = _viewable(request, subscription_id)
    with_stream_health([sub])
    context = {
        "nav": "subscriptions",
        "sub": sub,
        "show_payload": may_see_payloads(viewer=request.user, subscription=sub),
        "received": list(received_of(subscription=sub)[:100]),
        "refreshes": list(refreshes_of(subscription=sub)[:50]),
        "deliveries": list(
            deliveries_of_stream(host_id=sub.host_id, stream=sub.id).order_by("-seq")[:50]
        ),
        "may_act": _may_act(request.user, sub),
        # An MCPE server without events_pause/events_resume cannot pause (409).
        "pausable": sub.mode != "mcpe"
        or mcpe_can_pause((sub.server.capabilities or {}).get("mcpe")),
        "tasks": list(task_watches_of(subscription=sub)),
    }
    return render(request, "subscriptions/detail.html", context)


def _viewable(request, subscription_id: str):
    return subscription_get_for_viewer(viewer=request.user, subscription_id=subscription_id)


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
        return render(request, "subscriptions/row.html", {"sub": with_stream_health([sub])[0]})
    return redirect("subscriptions:detail", subscription_id=sub.id)


# --- staff -------------------------------------------------------------------------


@require_GET
@staff_required
def staff_subscription_list(request):
    host = request.user.host
    rows = subscriptions_for_host(
        host=host,
        user_id=user_id_to_filter_by(
            host=host, external_id=request.GET.get("user", "").strip() or None
        ),
        server_id=request.GET.get("server") or None,
        status=request.GET.get("status") or None,
        event=request.GET.get("event") or None,
    )
    page, next_cursor = page_of(request, rows)
    query = request.GET.copy()
    query.pop("cursor", None)
    context = {
        "nav": "subscriptions",
        "subs": with_stream_health(page),
        "next_cursor": next_cursor,
        "staff_view": True,
        "push_streams": push_streams_summary(host=host),
        "statuses": SubscriptionStatus.values,
        "servers": servers_for_host(host=host),
        "filters": request.GET,
        "filter_query": query.urlencode(),
    }
    template = "subscriptions/list.html#results" if request.htmx else "subscriptions/list.html"
    return render(request, template, context)
