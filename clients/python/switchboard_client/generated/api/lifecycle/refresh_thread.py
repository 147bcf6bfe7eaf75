from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_out import ErrorOut
from ...models.thread_refresh_in import ThreadRefreshIn
from ...models.thread_refresh_out import ThreadRefreshOut
from ...types import Response


def _get_kwargs(
    thread_id: str,
    *,
    body: ThreadRefreshIn,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/threads/{thread_id}/refresh".format(
            thread_id=quote(str(thread_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorOut | ThreadRefreshOut | None:
    if response.status_code == 202:
        response_202 = ThreadRefreshOut.from_dict(response.json())

        return response_202

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

    if response.status_code == 429:
        response_429 = ErrorOut.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorOut | ThreadRefreshOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    thread_id: str,
    *,
    client: AuthenticatedClient,
    body: ThreadRefreshIn,
) -> Response[ErrorOut | ThreadRefreshOut]:
    """Refresh Thread

     Refresh the tools and resources of every server of the thread (the thread-scoped capability
    refresh).

    Args:
        thread_id (str):
        body (ThreadRefreshIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | ThreadRefreshOut]
    """

    kwargs = _get_kwargs(
        thread_id=thread_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    thread_id: str,
    *,
    client: AuthenticatedClient,
    body: ThreadRefreshIn,
) -> ErrorOut | ThreadRefreshOut | None:
    """Refresh Thread

     Refresh the tools and resources of every server of the thread (the thread-scoped capability
    refresh).

    Args:
        thread_id (str):
        body (ThreadRefreshIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | ThreadRefreshOut
    """

    return sync_detailed(
        thread_id=thread_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    thread_id: str,
    *,
    client: AuthenticatedClient,
    body: ThreadRefreshIn,
) -> Response[ErrorOut | ThreadRefreshOut]:
    """Refresh Thread

     Refresh the tools and resources of every server of the thread (the thread-scoped capability
    refresh).

    Args:
        thread_id (str):
        body (ThreadRefreshIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | ThreadRefreshOut]
    """

    kwargs = _get_kwargs(
        thread_id=thread_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    thread_id: str,
    *,
    client: AuthenticatedClient,
    body: ThreadRefreshIn,
) -> ErrorOut | ThreadRefreshOut | None:
    """Refresh Thread

     Refresh the tools and resources of every server of the thread (the thread-scoped capability
    refresh).

    Args:
        thread_id (str):
        body (ThreadRefreshIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | ThreadRefreshOut
    """

    return (
        await asyncio_detailed(
            thread_id=thread_id,
            client=client,
            body=body,
        )
    ).parsed
