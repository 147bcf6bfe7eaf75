"""The staff page of organisation grants: what the organisation allowed,
for whom, by whom and until when; admins create, end and approve them
again, auditors read."""

from __future__ import annotations

from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from consent.forms import OrgGrantForm
from consent.org_selectors import org_grant_get_for_host, org_grants_for_host
from consent.services import org_grant_approve, org_grant_create, org_grant_end
from consent.views.staff import admin_required
from switchboard.actors import Actor
from switchboard.errors import DomainError
from switchboard.models import Role
from switchboard.selectors import server_get_for_host, servers_for_host
from switchboard.views.access import staff_required
from switchboard.views.paging import page_of


def _context(request, form=None, error: str = "") -> dict:
    host = request.user.host
    servers = list(servers_for_host(host=host).order_by("priority", "name"))
    rows, next_cursor = page_of(request, org_grants_for_host(host=host))
    return {
        "nav": "consents",
        "rows": rows,
        "next_cursor": next_cursor,
        "form": form or OrgGrantForm(servers=servers),
        "error": error,
        "can_edit": request.user.role == Role.ADMIN,
    }


@require_GET
@staff_required
def org_grants(request):
    return render(request, "consent/staff/org_grants.html", _context(request))


@require_POST
@admin_required
def org_grant_new(request):
    host = request.user.host
    form = OrgGrantForm(request.POST, servers=list(servers_for_host(host=host)))
    if form.is_valid():
        data = form.cleaned_data
        try:
            org_grant_create(
                host=host,
                server=server_get_for_host(host=host, server_id=data["server"]),
                scopes=data["scopes"],
                groups=data["groups"],
                user_can_revoke=data["user_can_revoke"],
                expires_at=data["expires_at"],
                actor=Actor.for_user(request.user),
                staff=request.user,
            )
            return redirect("consent-staff-org-grants")
        except DomainError as refused:
            field = refused.field if refused.field in form.fields else None
            form.add_error(field, refused.message)
    return render(
        request, "consent/staff/org_grants.html", _context(request, form=form), status=422
    )


@require_POST
@admin_required
def org_grant_stop(request, org_grant_id: str):
    org = org_grant_get_for_host(host=request.user.host, org_grant_id=org_grant_id)
    org_grant_end(org_grant=org, actor=Actor.for_user(request.user), staff=request.user)
    return redirect("consent-staff-org-grants")


@require_POST
@admin_required
def org_grant_allow_again(request, org_grant_id: str):
    org = org_grant_get_for_host(host=request.user.host, org_grant_id=org_grant_id)
    org_grant_approve(org_grant=org, actor=Actor.for_user(request.user))
    return redirect("consent-staff-org-grants")
