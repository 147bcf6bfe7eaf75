"""Staff: how this host's staff sign in (the OIDC connection, its SCIM
token) and the sessions they have open (one's own, and for admins everyone's)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import logout
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from switchboard.actors import Actor
from switchboard.errors import Invalid
from switchboard.models import Role, SsoConnection, StaffSession
from switchboard.sso.connections import (
    ConnectionIn,
    redirect_uri,
    scim_token_create,
    sso_connection_save,
)
from switchboard.sso.sessions import staff_sessions_end, staff_sessions_open
from switchboard.views.access import admin_required, staff_required


def _lines(text: str) -> list[str]:
    return [part.strip() for part in text.replace(",", "\n").splitlines() if part.strip()]


def _page(request, *, status: int = 200, form: dict | None = None, scim_token: str = ""):
    host = request.user.host
    connection = SsoConnection.objects.filter(host=host).first()
    if form is None and connection is not None:
        form = {
            "issuer": connection.issuer,
            "client_id": connection.client_id,
            "email_domains": "\n".join(connection.email_domains),
            "role_claim": connection.role_claim,
            "admin_values": "\n".join(connection.admin_values),
            "auditor_values": "\n".join(connection.auditor_values),
            "enabled": connection.enabled,
        }
    everyone = None
    if request.user.role == Role.ADMIN:
        everyone = (
            StaffSession.objects.filter(user__host=host, ended_at__isnull=True)
            .exclude(user=request.user)
            .select_related("user")
        )
    context = {
        "nav": "staff",
        "connection": connection,
        "form": form or {"role_claim": "groups", "enabled": True},
        "redirect_uri": redirect_uri(),
        "scim_token": scim_token,
        "own_sessions": staff_sessions_open(user=request.user),
        "current_key": request.session.session_key,
        "everyone_sessions": everyone,
    }
    response = render(request, "staff/sign_in.html", context, status=status)
    if scim_token:
        response["Cache-Control"] = "no-store"
    return response


@require_GET
@staff_required
def sign_in_settings(request):
    return _page(request)


@require_POST
@admin_required
def sso_save(request):
    post = request.POST
    form = {name: post.get(name, "") for name in ("issuer", "client_id", "role_claim")}
    form |= {
        "email_domains": post.get("email_domains", ""),
        "admin_values": post.get("admin_values", ""),
        "auditor_values": post.get("auditor_values", ""),
        "enabled": post.get("enabled") == "on",
    }
    existing = SsoConnection.objects.filter(host=request.user.host).first()
    secret = post.get("client_secret", "") or (existing.client_secret["secret"] if existing else "")
    data = ConnectionIn(
        issuer=form["issuer"].strip(),
        client_id=form["client_id"],
        client_secret=secret,
        email_domains=_lines(form["email_domains"]),
        role_claim=form["role_claim"],
        admin_values=_lines(form["admin_values"]),
        auditor_values=_lines(form["auditor_values"]),
        enabled=form["enabled"],
    )
    try:
        sso_connection_save(host=request.user.host, data=data, actor=Actor.for_user(request.user))
    except Invalid as invalid:
        messages.error(request, invalid.message)
        return _page(request, status=422, form=form)
    messages.success(request, "Organisation sign-in saved.")
    return redirect("staff-sign-in")


@require_POST
@admin_required
def scim_token_new(request):
    connection = SsoConnection.objects.filter(host=request.user.host).first()
    if connection is None:
        messages.error(request, "Connect an identity provider first.")
        return redirect("staff-sign-in")
    token = scim_token_create(connection=connection, actor=Actor.for_user(request.user))
    return _page(request, scim_token=token)


@require_POST
@staff_required
def sessions_end(request):
    """``which``: "mine" (sign out everywhere, this browser too), or a
    session id — one's own, or (admins) anyone's of the host."""
    which = request.POST.get("which", "")
    actor = Actor.for_user(request.user)
    if which == "mine":
        staff_sessions_end(user=request.user, actor=actor, reason="signed_out_everywhere")
        logout(request)
        return redirect("login-required")
    session = (
        StaffSession.objects.filter(pk=which, user__host=request.user.host)
        .select_related("user")
        .first()
    )
    if session is None:
        raise PermissionDenied("no such session")
    if session.user_id != request.user.id and request.user.role != Role.ADMIN:
        raise PermissionDenied("admins only")
    staff_sessions_end(
        user=session.user, session_id=session.id, actor=actor, reason="ended_by_staff"
    )
    if session.session_key == request.session.session_key:
        logout(request)
        return redirect("login-required")
    messages.success(request, f"A session of {session.user.email or session.user.label} ended.")
    return redirect("staff-sign-in")
