"""A client of the generated package set up for Switchboard: the API key, the
``Switchboard-Actor`` header, retries of 429/503 and typed errors."""

from __future__ import annotations

import httpx

from switchboard_client.errors import raise_for_error
from switchboard_client.generated.client import AuthenticatedClient
from switchboard_client.retries import RetryingTransport

ACTOR_HEADER = "Switchboard-Actor"


def connect(
    base_url: str,
    api_key: str,
    *,
    actor: str | None = None,
    retries: int = 3,
    max_wait: float = 60.0,
    timeout: float = 30.0,
) -> AuthenticatedClient:
    """A client for every generated call (``put_user.sync(..., client=...)``).

    ``base_url`` is where the console runs (``http://127.0.0.1:8000``, without
    ``/api/v1``); ``actor``, when given, is sent as ``Switchboard-Actor`` (whom
    the host calls for) on every call, and ``acting_for`` gives another."""
    headers = {ACTOR_HEADER: actor} if actor else {}
    return AuthenticatedClient(
        base_url=base_url.rstrip("/"),
        token=api_key,
        headers=headers,
        timeout=httpx.Timeout(timeout),
        raise_on_unexpected_status=True,
        httpx_args={
            "transport": RetryingTransport(retries=retries, max_wait=max_wait),
            "event_hooks": {"response": [raise_for_error]},
        },
    )


def acting_for(client: AuthenticatedClient, actor: str) -> AuthenticatedClient:
    """The same client, its calls made for ``actor`` (``Switchboard-Actor``)."""
    return client.with_headers({ACTOR_HEADER: actor})
