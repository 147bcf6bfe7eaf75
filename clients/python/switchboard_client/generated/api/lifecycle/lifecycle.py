from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_out import ErrorOut
from ...models.lifecycle_in import LifecycleIn
from ...models.lifecycle_out import LifecycleOut
from ...types import Response


def _get_kwargs(
    session_id: str,
    *,
    body: LifecycleIn,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/sessions/{session_id}/lifecycle".format(
            session_id=quote(str(session_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorOut | LifecycleOut | None:
    if response.status_code == 200:
        response_200 = LifecycleOut.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorOut.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorOut.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorOut.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorOut.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorOut.from_dict(response.json())

        return response_409

    if response.status_code == 422:
        response_422 = ErrorOut.from_dict(response.json())

        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorOut | LifecycleOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: LifecycleIn,
) -> Response[ErrorOut | LifecycleOut]:
    """Lifecycle

     Evaluate one lifecycle event of the session: what to inject, what was
    held back and why, and whether a thread refresh was scheduled. With
    ``dialect``, ``event`` is the host's own name for it (``hooks.dialects``).

    Args:
        session_id (str):
        body (LifecycleIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | LifecycleOut]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: LifecycleIn,
) -> ErrorOut | LifecycleOut | None:
    """Lifecycle

     Evaluate one lifecycle event of the session: what to inject, what was
    held back and why, and whether a thread refresh was scheduled. With
    ``dialect``, ``event`` is the host's own name for it (``hooks.dialects``).

    Args:
        session_id (str):
        body (LifecycleIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | LifecycleOut
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: LifecycleIn,
) -> Response[ErrorOut | LifecycleOut]:
    """Lifecycle

     Evaluate one lifecycle event of the session: what to inject, what was
    held back and why, and whether a thread refresh was scheduled. With
    ``dialect``, ``event`` is the host's own name for it (``hooks.dialects``).

    Args:
        session_id (str):
        body (LifecycleIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | LifecycleOut]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: LifecycleIn,
) -> ErrorOut | LifecycleOut | None:
    """Lifecycle

     Evaluate one lifecycle event of the session: what to inject, what was
    held back and why, and whether a thread refresh was scheduled. With
    ``dialect``, ``event`` is the host's own name for it (``hooks.dialects``).

    Args:
        session_id (str):
        body (LifecycleIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | LifecycleOut
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            body=body,
        )
    ).parsed
