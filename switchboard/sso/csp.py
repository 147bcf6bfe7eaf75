"""The sign-in form submits to /sso/start, which redirects to the host's
IdP; browsers hold a form's redirects to the page's ``form-action``
(``'self'``), so pages showing the form also allow the authorization
endpoints of the enabled connections, and nothing else."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpResponse
from django.utils.csp import CSP

from switchboard.models import SsoConnection


def idp_origins() -> list[str]:
    origins = set()
    for discovery in SsoConnection.objects.filter(enabled=True).values_list("discovery", flat=True):
        parts = urlsplit(str((discovery or {}).get("authorization_endpoint", "")))
        if parts.scheme in ("https", "http") and parts.netloc:
            origins.add(f"{parts.scheme}://{parts.netloc}")
    return sorted(origins)


def allow_sign_in_form(response: HttpResponse) -> HttpResponse:
    config = dict(settings.SECURE_CSP)
    config["form-action"] = [CSP.SELF, *idp_origins()]
    response._csp_config = config  # type: ignore[attr-defined]  # django.middleware.csp reads it
    return response
