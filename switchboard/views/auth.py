from datetime import timedelta

from django.conf import settings
from django.contrib.auth import login, logout
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from switchboard.models import SignInMethod
from switchboard.services.users import LoginLinkRejected, login_link_consume
from switchboard.sso.csp import allow_sign_in_form
from switchboard.sso.sessions import staff_session_record


@require_GET
def consume_login_link(request, token: str):
    try:
        link = login_link_consume(token=token)
    except LoginLinkRejected as rejected:
        status = 410 if rejected.reason in ("used", "expired") else 404
        return render(
            request, "auth/link_rejected.html", {"reason": rejected.reason}, status=status
        )
    # A fresh session (login() cycles the key), so a link never joins someone else's session.
    logout(request)
    login(request, link.user, backend="django.contrib.auth.backends.ModelBackend")
    if link.user.is_host_staff:
        expires_at = timezone.now() + timedelta(seconds=settings.SESSION_COOKIE_AGE)
        staff_session_record(
            request=request, user=link.user, method=SignInMethod.LINK, expires_at=expires_at
        )
    return redirect(link.next_path or "home")


@require_POST
def sign_out(request):
    logout(request)
    return redirect("home")


@require_GET
def login_required_notice(request):
    return allow_sign_in_form(render(request, "auth/login_required.html", status=401))
