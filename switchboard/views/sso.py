"""Organisation sign-in pages: start (work email → the right IdP) and the
callback the IdP sends the browser back to."""

from __future__ import annotations

import logging

from django.contrib.auth import login, logout
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from switchboard.models import SignInMethod
from switchboard.sso.sessions import staff_session_record
from switchboard.sso.signin import (
    IdpFailed,
    SignInRefused,
    connection_for_email,
    sign_in_finish,
    sign_in_refusal_record,
    sign_in_start,
)

log = logging.getLogger(__name__)

REASONS = {
    "state_mismatch": "This sign-in does not match one started in this browser (or it was already used).",
    "invalid_signature": "The identity provider's token is not signed with its published keys.",
    "wrong_issuer": "The token was issued by another identity provider.",
    "wrong_audience": "The token was issued to another application.",
    "token_expired": "The token from the identity provider has expired.",
    "nonce_mismatch": "The token does not belong to this sign-in.",
    "email_not_verified": "Your identity provider has not verified your email address.",
    "domain_not_allowed": "Your email's domain is not one this organisation signs in with.",
    "no_role": "Your organisation has not given you an admin or auditor role here.",
    "deactivated": "Your account here has been deactivated by your organisation.",
}


def _page(request, *, status: int, title: str, message: str, reason: str = ""):
    context = {"title": title, "message": message, "reason": reason}
    return render(request, "auth/sso_refused.html", context, status=status)


@require_GET
def sso_start(request):
    email = request.GET.get("email", "").strip()
    connection = connection_for_email(email) if "@" in email else None
    if connection is None:
        return _page(
            request,
            status=404,
            title="Organisation sign-in is not available",
            message="No organisation signs in here with that email's domain, or its sign-in is turned off. "
            "Use a sign-in link instead.",
        )
    return redirect(sign_in_start(session=request.session, connection=connection, email=email))


@require_GET
def sso_callback(request):
    if "error" in request.GET:
        return _page(
            request,
            status=403,
            title="Your identity provider did not sign you in",
            message=f"It answered: {request.GET['error'][:100]}.",
        )
    try:
        signed_in = sign_in_finish(
            session=request.session,
            state=request.GET.get("state", ""),
            code=request.GET.get("code", ""),
        )
    except SignInRefused as refusal:
        sign_in_refusal_record(refusal)
        return _page(
            request,
            status=403,
            title="Sign-in refused",
            message=REASONS[refusal.reason],
            reason=refusal.reason,
        )
    except IdpFailed as failure:
        log.warning("organisation sign-in failed at the IdP: %s", failure)
        return _page(
            request,
            status=502,
            title="Your identity provider could not be reached",
            message="Try again in a moment.",
        )
    logout(request)
    login(request, signed_in.user, backend="django.contrib.auth.backends.ModelBackend")
    # An absolute end (not one renewed by activity): SSO_SESSION_MAX_AGE.
    request.session.set_expiry(signed_in.expires_at)
    staff_session_record(
        request=request,
        user=signed_in.user,
        method=SignInMethod.SSO,
        expires_at=signed_in.expires_at,
    )
    return redirect("staff-overview")
