from django.contrib.auth import login, logout
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from switchboard.services.users import LoginLinkRejected, login_link_consume


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
    return redirect(link.next_path or "home")


@require_POST
def sign_out(request):
    logout(request)
    return redirect("home")


@require_GET
def login_required_notice(request):
    return render(request, "auth/login_required.html", status=401)
