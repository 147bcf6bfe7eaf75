"""The signed-in user's consent pages: the consent page, "Authorized
servers", and what was injected into their conversations."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from consent.forms import decisions_from_post, remember_options
from consent.models import RequestStatus
from consent.presenters import DEFAULT_SAMPLE, preview_json, request_views
from consent.selectors import (
    authorized_server_cards,
    consent_request_get_for_user,
    consent_request_status,
    consent_requests_pending_for_user,
    conversation_consented,
    grant_get_for_user,
    grants_open_of_user,
    host_policy_get,
    injections_of_user,
)
from consent.services import (
    consent_request_decide,
    consent_request_refresh,
    conversation_reenable,
    grant_turn_off,
    grants_turn_off_all,
)
from consent.services.connections import server_disconnect
from consent.services.request_links import return_link
from consent.views.access_requests import access_context
from switchboard.actors import Actor
from switchboard.errors import Conflict, Forbidden, Invalid
from switchboard.models import McpServer
from switchboard.selectors import server_get_for_host
from switchboard.views.access import login_required_page
from switchboard.views.paging import page_of


def _own_request(request, request_id: str):
    return consent_request_get_for_user(user=request.user, request_id=request_id)


def request_page_context(
    consent_request, *, sample: str = DEFAULT_SAMPLE, staff: bool = False, errors=None
):
    policy = host_policy_get(host_id=consent_request.host_id)
    views = request_views(consent_request, policy=policy)
    errors = errors or {}
    for view in views:
        view.error = errors.get(view.grant.id, "")
    return {
        "req": consent_request,
        "status": consent_request_status(consent_request),
        "grants": views,
        "reads_messages": any(v.grant.scope == "conversation:read" for v in views),
        "remember_options": remember_options(),
        "return_link": return_link(consent_request),
        "sample": sample,
        "preview": preview_json(sample=sample),
        "staff_mode": staff,
        "errors": errors,
        "form_error": errors.get("__all__", ""),
    }


@require_GET
@login_required_page
def consent_page(request, request_id: str):
    if request.user.is_host_staff:
        return redirect("consent-staff-request", request_id=request_id)
    consent_request = _own_request(request, request_id)
    if consent_request_status(consent_request) == RequestStatus.PENDING:
        consent_request_refresh(request=consent_request)
    sample = (request.GET.get("sample") or DEFAULT_SAMPLE)[:2000]
    context = {"nav": "consent", **request_page_context(consent_request, sample=sample)}
    return render(request, "consent/request.html", context)


@require_GET
@login_required_page
def consent_preview(request, request_id: str):
    consent_request = _own_request(request, request_id) if not request.user.is_host_staff else None
    sample = (request.GET.get("sample") or DEFAULT_SAMPLE)[:2000]
    context = {"req": consent_request, "sample": sample, "preview": preview_json(sample=sample)}
    return render(request, "consent/request.html#preview", context)


def decide(
    request, consent_request, *, channel: str, staff: bool, template_name: str, done_url: str
):
    """POST of the consent form, for the user or for staff on their behalf."""
    grants = list(consent_request.grants.select_related("server").order_by("scope"))
    decisions, remember, errors = decisions_from_post(consent_request, grants, request.POST)
    status = 200
    if not errors:
        try:
            consent_request_decide(
                request=consent_request,
                decisions=decisions,
                remember=remember,
                actor=Actor.for_user(request.user),
                channel=channel,
                decided_by=request.user,
            )
        except Conflict as conflict:
            errors["__all__"] = conflict.message
            status = 409
            consent_request_refresh(request=consent_request)
        except Invalid as invalid:
            errors[invalid.field or "__all__"] = invalid.message
    if errors and status == 200:
        status = 422
    consent_request.refresh_from_db()
    context = request_page_context(consent_request, staff=staff, errors=errors)
    if not errors and not request.htmx:
        return redirect(done_url)
    template = f"{template_name}#decision" if request.htmx else template_name
    return render(request, template, context, status=status)


@require_POST
@login_required_page
def consent_decide(request, request_id: str):
    if request.user.is_host_staff:
        raise Http404("staff decide on the staff page")
    consent_request = _own_request(request, request_id)
    return decide(
        request,
        consent_request,
        channel="browser",
        staff=False,
        template_name="consent/request.html",
        done_url=reverse("consent-request", args=[consent_request.id]),
    )


def _servers_context(user):
    return {
        "nav": "authorized",
        "subject": user,
        "cards": authorized_server_cards(user=user),
        "pending": list(consent_requests_pending_for_user(user=user)),
        "staff": False,
        **access_context(user),
    }


def _back(request, fallback: str):
    """htmx gets the fresh cards; a plain form post is sent back to the page."""
    if request.htmx:
        return render(request, "consent/servers.html#cards", _servers_context(request.user))
    return redirect(fallback)


@require_GET
@login_required_page
def authorized_servers(request):
    if request.user.is_host_staff:
        return redirect("consent-staff-pending")
    return render(request, "consent/servers.html", _servers_context(request.user))


@require_POST
@login_required_page
def revoke_grant(request, grant_id: str):
    grant = grant_get_for_user(user=request.user, grant_id=grant_id)
    try:
        grant_turn_off(grant=grant, actor=Actor.for_user(request.user))
    except Forbidden as refused:  # the organisation keeps it on
        raise PermissionDenied(refused.message) from None
    return _back(request, reverse("consent-servers"))


@require_http_methods(["GET", "POST"])
@login_required_page
def revoke_server(request, server_id: str):
    server = server_get_for_host(host=request.user.host, server_id=server_id, include_removed=True)
    return _revoke_after_confirming(request, server=server)


@require_http_methods(["GET", "POST"])
@login_required_page
def revoke_everything(request):
    return _revoke_after_confirming(request, server=None)


def _revoke_after_confirming(request, *, server: McpServer | None):
    """Taking back many things at once asks first, naming each of them; only
    the confirmation's own button (``confirm=yes``) revokes."""
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        count = grants_turn_off_all(
            user=request.user, server=server, actor=Actor.for_user(request.user)
        )
        messages.success(request, f"Taken back: {count} permission{pluralize(count)}.")
        return redirect("consent-servers")
    grants = [g for g in grants_open_of_user(user=request.user, server=server) if g.revocable]
    context = {"nav": "authorized", "server": server, "grants": grants}
    return render(request, "consent/revoke_confirm.html", context)


@require_POST
@login_required_page
def disconnect_server(request, server_id: str):
    """Remove the user's own credentials for the server: it then acts as the
    host's account (or none). What it may do stays as the user allowed it."""
    server = server_get_for_host(host=request.user.host, server_id=server_id, include_removed=True)
    try:
        server_disconnect(user=request.user, server=server, actor=Actor.for_user(request.user))
    except Conflict as conflict:
        messages.info(request, conflict.message)
    else:
        messages.success(request, f"Disconnected: {server.name} no longer uses your own account.")
    return _back(request, reverse("consent-servers"))


@require_POST
@login_required_page
def reenable_conversation(request, server_id: str):
    """Users who consented to a server may switch it back on after timeouts."""
    server = server_get_for_host(host=request.user.host, server_id=server_id, include_removed=True)
    if not conversation_consented(user=request.user, server_id=server.id):
        raise Http404("no such server")
    conversation_reenable(server=server, actor=Actor.for_user(request.user))
    return _back(request, reverse("consent-servers"))


@require_GET
@login_required_page
def injections(request):
    rows = injections_of_user(user=request.user)
    page, next_cursor = page_of(request, rows)
    context = {"nav": "injections", "rows": page, "next_cursor": next_cursor}
    return render(request, "consent/injections.html", context)
