"""Who may open which page. Every page view is wrapped in one of these."""

from __future__ import annotations

from functools import wraps

from django.core.exceptions import PermissionDenied
from django.shortcuts import render

from switchboard.sso.csp import allow_sign_in_form


def _signed_in(request) -> bool:
    user = request.user
    return user.is_authenticated and user.is_active and bool(user.host_id)


def login_required_page(view):
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not _signed_in(request):
            return allow_sign_in_form(render(request, "auth/login_required.html", status=401))
        return view(request, *args, **kwargs)

    return wrapper


def staff_required(view):
    """Host admins and auditors: everything of their own host, nothing else."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not _signed_in(request):
            return allow_sign_in_form(render(request, "auth/login_required.html", status=401))
        if not request.user.is_host_staff:
            raise PermissionDenied("staff only")
        return view(request, *args, **kwargs)

    return wrapper


def admin_required(view):
    """What changes the host's setup: its admins only. Auditors see every staff
    page but change nothing (403, with the styled page saying why)."""

    @wraps(view)
    @staff_required
    def wrapper(request, *args, **kwargs):
        if request.user.role != "admin":
            raise PermissionDenied("admins only")
        return view(request, *args, **kwargs)

    return wrapper
