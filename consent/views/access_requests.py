"""Access requests on the console: the user asks for a server the policy does
not allow yet (the form, and their own requests on "Authorized servers");
staff answer in the queue. Admins approve or deny; auditors read."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from consent.access_selectors import (
    access_request_get_for_host,
    access_requests_for_host,
    access_requests_of_user,
    server_to_request,
    servers_to_request,
)
from consent.forms import AccessDenyForm, AccessRequestForm
from consent.models import AccessRequestStatus
from consent.services.access_requests import (
    access_request_approve,
    access_request_create,
    access_request_deny,
)
from switchboard.actors import Actor
from switchboard.errors import Conflict, Invalid
from switchboard.models import Role, User
from switchboard.views.access import admin_required, login_required_page, staff_required
from switchboard.views.paging import page_of


def access_context(user: User) -> dict:
    """The user's part of "Authorized servers": the servers they may ask
    for, and what became of what they asked."""
    return {
        "askable": servers_to_request(user=user),
        "access_requests": list(access_requests_of_user(user=user)[:50]),
    }


@require_http_methods(["GET", "POST"])
@login_required_page
def request_form(request, server_id: str):
    if not request.user.is_end_user:
        raise Http404("staff do not ask for access")
    server = server_to_request(user=request.user, server_id=server_id)
    form = AccessRequestForm(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 422
        if form.is_valid():
            try:
                access_request_create(
                    user=request.user,
                    server=server,
                    reason=form.cleaned_data["reason"],
                    actor=Actor.for_user(request.user),
                )
            except Conflict as conflict:
                form.add_error(None, conflict.message)
                status = 409
            except Invalid as invalid:
                form.add_error("reason" if invalid.field == "reason" else None, invalid.message)
            else:
                messages.success(
                    request,
                    f"Your request for {server.name} was sent. You will see the answer here.",
                )
                return redirect("consent-servers")
    context = {"nav": "authorized", "server": server, "form": form}
    return render(request, "consent/access_request_form.html", context, status=status)


STATUS_FILTERS = [
    ("pending", "Waiting"),
    ("approved", "Approved"),
    ("denied", "Denied"),
    ("", "All"),
]


def _queue_context(request, *, deny_errors: dict | None = None) -> dict:
    status = request.GET.get("status", "pending")
    if status not in AccessRequestStatus.values:
        status = ""
    rows, next_cursor = page_of(
        request, access_requests_for_host(host=request.user.host, status=status or None)
    )
    for row in rows:
        row.deny_error = (deny_errors or {}).get(row.id, "")
    return {
        "nav": "consents",
        "rows": rows,
        "next_cursor": next_cursor,
        "status": status,
        "filters": STATUS_FILTERS,
        "can_decide": request.user.role == Role.ADMIN,
    }


@require_GET
@staff_required
def queue(request):
    return render(request, "consent/staff/access_requests.html", _queue_context(request))


def _back_to_queue(request, message: str, *, error: bool = False):
    (messages.error if error else messages.success)(request, message)
    return redirect("consent-staff-access-requests")


@require_POST
@admin_required
def approve(request, request_id: str):
    found = access_request_get_for_host(host=request.user.host, request_id=request_id)
    try:
        access_request_approve(request=found, actor=Actor.for_user(request.user))
    except Conflict as conflict:
        return _back_to_queue(request, conflict.message, error=True)
    return _back_to_queue(
        request, f"Approved: {found.user.label} is asked to consent to {found.server.name}."
    )


@require_POST
@admin_required
def deny(request, request_id: str):
    found = access_request_get_for_host(host=request.user.host, request_id=request_id)
    form = AccessDenyForm(request.POST)
    error = ""
    if form.is_valid():
        try:
            access_request_deny(
                request=found, note=form.cleaned_data["note"], actor=Actor.for_user(request.user)
            )
        except Conflict as conflict:
            return _back_to_queue(request, conflict.message, error=True)
        except Invalid as invalid:
            error = invalid.message
        else:
            return _back_to_queue(request, f"Denied: {found.user.label} sees your note.")
    else:
        error = " ".join(str(e) for e in form.errors.get("note", [])) or "Say why not."
    context = _queue_context(request, deny_errors={found.id: error})
    return render(request, "consent/staff/access_requests.html", context, status=422)
