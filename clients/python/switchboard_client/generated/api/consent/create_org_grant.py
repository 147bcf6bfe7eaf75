from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_out import ErrorOut
from ...models.org_grant_in import OrgGrantIn
from ...models.org_grant_out import OrgGrantOut
from ...types import Response


def _get_kwargs(
    *,
    body: OrgGrantIn,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/org-grants",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorOut | OrgGrantOut | None:
    if response.status_code == 201:
        response_201 = OrgGrantOut.from_dict(response.json())

        return response_201

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
) -> Response[ErrorOut | OrgGrantOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: OrgGrantIn,
) -> Response[ErrorOut | OrgGrantOut]:
    """Create Org Grant

     Allow a server for groups of users (``["*"]``: everyone), no prompt;
    409 ``server_blocked`` for a blocked server, 403 ``server_not_allowed``
    for one the policy does not allow.

    Args:
        body (OrgGrantIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | OrgGrantOut]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: OrgGrantIn,
) -> ErrorOut | OrgGrantOut | None:
    """Create Org Grant

     Allow a server for groups of users (``["*"]``: everyone), no prompt;
    409 ``server_blocked`` for a blocked server, 403 ``server_not_allowed``
    for one the policy does not allow.

    Args:
        body (OrgGrantIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | OrgGrantOut
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: OrgGrantIn,
) -> Response[ErrorOut | OrgGrantOut]:
    """Create Org Grant

     Allow a server for groups of users (``["*"]``: everyone), no prompt;
    409 ``server_blocked`` for a blocked server, 403 ``server_not_allowed``
    for one the policy does not allow.

    Args:
        body (OrgGrantIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | OrgGrantOut]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: OrgGrantIn,
) -> ErrorOut | OrgGrantOut | None:
    """Create Org Grant

     Allow a server for groups of users (``["*"]``: everyone), no prompt;
    409 ``server_blocked`` for a blocked server, 403 ``server_not_allowed``
    for one the policy does not allow.

    Args:
        body (OrgGrantIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | OrgGrantOut
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
