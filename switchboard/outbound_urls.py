"""A URL someone gives us to send to later (the host endpoint, the audit
drain, an OIDC issuer), checked one way wherever it is given: http(s), at
most 2000 characters, and allowed by the outbound address guard
(``switchboard.mcp.netguard``). Refused: a 422 naming the field. The guard
runs again on every send; this check only refuses early, with a message."""

from __future__ import annotations

from switchboard.errors import Invalid
from switchboard.mcp.netguard import BlockedTarget, check_url

MAX_LENGTH = 2000


def outbound_url_checked(url: str | None, *, field: str = "url") -> str:
    """``url`` without surrounding white space; ``Invalid`` naming ``field``
    (code ``blocked_target`` when the guard refuses its address)."""
    url = (url or "").strip()
    if not url.startswith(("https://", "http://")) or len(url) > MAX_LENGTH:
        raise Invalid(
            f"{field} must be an http(s) URL of at most {MAX_LENGTH} characters", field=field
        )
    try:
        check_url(url)
    except BlockedTarget as blocked:
        raise Invalid(
            f"{field} is not allowed: {blocked.message}", field=field, code="blocked_target"
        ) from None
    return url
