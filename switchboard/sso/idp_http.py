"""Every call to an identity provider goes through the outbound guard: the
issuer and its endpoints are URLs a tenant typed in (SSRF), so each is vetted
and the connection pinned to the vetted addresses (``netguard``)."""

from __future__ import annotations

from typing import Any

import httpx

from switchboard.mcp.netguard import BlockedTarget, check_url, httpx_transport

TIMEOUT = 10


class IdpUnreachable(Exception):
    pass


def idp_client(url: str, cls: type[httpx.Client] = httpx.Client, **kwargs: Any) -> httpx.Client:
    """An httpx client (or authlib's ``OAuth2Client``) for ``url``'s origin."""
    try:
        target = check_url(url)
    except BlockedTarget as blocked:
        raise IdpUnreachable(str(blocked)) from None
    return cls(
        transport=httpx_transport(target),
        timeout=TIMEOUT,
        follow_redirects=False,
        trust_env=False,
        **kwargs,
    )


def idp_get_json(url: str, **headers: str) -> dict[str, Any]:
    try:
        with idp_client(url) as client:
            answer = client.get(url, headers=headers)
            answer.raise_for_status()
            data = answer.json()
    except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
        raise IdpUnreachable(f"{url}: {exc}") from None
    if not isinstance(data, dict):
        raise IdpUnreachable(f"{url}: not a JSON object")
    return data
