from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_out import ErrorOut
from ...types import Response


def _get_kwargs(
    org_grant_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/v1/org-grants/{org_grant_id}".format(
            org_grant_id=quote(str(org_grant_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ErrorOut | None:
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

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
) -> Response[Any | ErrorOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    org_grant_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[Any | ErrorOut]:
    """End Org Grant

     End it: it stops applying at the very next call, for every member.

    Args:
        org_grant_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorOut]
    """

    kwargs = _get_kwargs(
        org_grant_id=org_grant_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    org_grant_id: str,
    *,
    client: AuthenticatedClient,
) -> Any | ErrorOut | None:
    """End Org Grant

     End it: it stops applying at the very next call, for every member.

    Args:
        org_grant_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorOut
    """

    return sync_detailed(
        org_grant_id=org_grant_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    org_grant_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[Any | ErrorOut]:
    """End Org Grant

     End it: it stops applying at the very next call, for every member.

    Args:
        org_grant_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorOut]
    """

    kwargs = _get_kwargs(
        org_grant_id=org_grant_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    org_grant_id: str,
    *,
    client: AuthenticatedClient,
) -> Any | ErrorOut | None:
    """End Org Grant

     End it: it stops applying at the very next call, for every member.

    Args:
        org_grant_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorOut
    """

    return (
        await asyncio_detailed(
            org_grant_id=org_grant_id,
            client=client,
        )
    ).parsed
