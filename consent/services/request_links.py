"""Where a consent request sends the user: the console page that asks, and
"Back to the app" afterwards.

``consent_url`` is a console page (``/consent/<id>/``). To send a user there
signed in, the host issues a login link with that path as ``next``
(``POST /api/v1/users/{external_id}/login-links {"next": "/consent/<id>/"}``);
a user already signed in can open it directly.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from django.conf import settings

from consent.models import ConsentRequest
from switchboard.errors import Invalid
from switchboard.models import Host


def consent_url(request: ConsentRequest) -> str:
    return f"{settings.PUBLIC_BASE_URL}{consent_path(request)}"


def consent_path(request: ConsentRequest) -> str:
    return f"/consent/{request.id}/"


def return_url_check(*, host: Host, return_url: str | None) -> str:
    """Absolute URLs must be on an origin the host registered; relative ones
    (a path, not ``//…``) resolve against the host's first origin."""
    if not return_url:
        return ""
    if len(return_url) > 2000 or any(c in return_url for c in "\r\n\t "):
        raise Invalid("return_url is not a valid URL", field="return_url")
    parts = urlsplit(return_url)
    if not parts.scheme and not parts.netloc:
        if not return_url.startswith("/") or return_url.startswith("//") or "\\" in return_url:
            raise Invalid(
                "a relative return_url must be a path starting with '/'", field="return_url"
            )
        return return_url
    origin = f"{parts.scheme}://{parts.netloc}".lower()
    allowed = {o.rstrip("/").lower() for o in host.allowed_origins}
    if parts.scheme not in ("http", "https") or origin not in allowed:
        raise Invalid(
            "return_url must be on an origin the host registered, or relative",
            field="return_url",
            code="return_url_not_allowed",
        )
    return return_url


def return_link(request: ConsentRequest) -> str:
    """Where "Back to the app" goes."""
    url = request.return_url
    if url.startswith("/") and request.host.allowed_origins:
        return urljoin(request.host.allowed_origins[0].rstrip("/") + "/", url.lstrip("/"))
    return url
