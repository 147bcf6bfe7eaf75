from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_out import ErrorOut
from ...models.login_link_in import LoginLinkIn
from ...models.login_link_out import LoginLinkOut
from ...types import UNSET, Response, Unset


def _get_kwargs(
    external_id: str,
    *,
    body: LoginLinkIn | None | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/users/{external_id}/login-links".format(
            external_id=quote(str(external_id), safe=""),
        ),
    }

    if isinstance(body, LoginLinkIn):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorOut | LoginLinkOut | None:
    if response.status_code == 201:
        response_201 = LoginLinkOut.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorOut.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorOut.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ErrorOut.from_dict(response.json())

        return response_404

    if response.status_code == 422:
        response_422 = ErrorOut.from_dict(response.json())

        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorOut | LoginLinkOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    external_id: str,
    *,
    client: AuthenticatedClient,
    body: LoginLinkIn | None | Unset = UNSET,
) -> Response[ErrorOut | LoginLinkOut]:
    """Create Login Link

    Args:
        external_id (str):
        body (LoginLinkIn | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | LoginLinkOut]
    """

    kwargs = _get_kwargs(
        external_id=external_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    external_id: str,
    *,
    client: AuthenticatedClient,
    body: LoginLinkIn | None | Unset = UNSET,
) -> ErrorOut | LoginLinkOut | None:
    """Create Login Link

    Args:
        external_id (str):
        body (LoginLinkIn | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | LoginLinkOut
    """

    return sync_detailed(
        external_id=external_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    external_id: str,
    *,
    client: AuthenticatedClient,
    body: LoginLinkIn | None | Unset = UNSET,
) -> Response[ErrorOut | LoginLinkOut]:
    """Create Login Link

    Args:
        external_id (str):
        body (LoginLinkIn | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | LoginLinkOut]
    """

    kwargs = _get_kwargs(
        external_id=external_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    external_id: str,
    *,
    client: AuthenticatedClient,
    body: LoginLinkIn | None | Unset = UNSET,
) -> ErrorOut | LoginLinkOut | None:
    """Create Login Link

    Args:
        external_id (str):
        body (LoginLinkIn | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | LoginLinkOut
    """

    return (
        await asyncio_detailed(
            external_id=external_id,
            client=client,
            body=body,
        )
    ).parsed
