import datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_out import ErrorOut
from ...models.grant_page import GrantPage
from ...types import UNSET, Response, Unset


def _get_kwargs(
    external_id: str,
    *,
    cursor: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    at: datetime.datetime | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    json_limit: int | None | Unset
    if isinstance(limit, Unset):
        json_limit = UNSET
    else:
        json_limit = limit
    params["limit"] = json_limit

    json_at: None | str | Unset
    if isinstance(at, Unset):
        json_at = UNSET
    elif isinstance(at, datetime.datetime):
        json_at = at.isoformat()
    else:
        json_at = at
    params["at"] = json_at

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/users/{external_id}/grants".format(
            external_id=quote(str(external_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorOut | GrantPage | None:
    if response.status_code == 200:
        response_200 = GrantPage.from_dict(response.json())

        return response_200

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
) -> Response[ErrorOut | GrantPage]:
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
    cursor: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    at: datetime.datetime | None | Unset = UNSET,
) -> Response[ErrorOut | GrantPage]:
    """List Grants

     Every grant of the user, newest first. With ``at`` (RFC 3339): the
    grants as they stood at that moment, each with its status then, rebuilt
    from the ledger (one page), and ``ledger``: the newest entry replayed and
    the signed checkpoint that covers it.

    Args:
        external_id (str):
        cursor (None | str | Unset):
        limit (int | None | Unset):
        at (datetime.datetime | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | GrantPage]
    """

    kwargs = _get_kwargs(
        external_id=external_id,
        cursor=cursor,
        limit=limit,
        at=at,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    external_id: str,
    *,
    client: AuthenticatedClient,
    cursor: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    at: datetime.datetime | None | Unset = UNSET,
) -> ErrorOut | GrantPage | None:
    """List Grants

     Every grant of the user, newest first. With ``at`` (RFC 3339): the
    grants as they stood at that moment, each with its status then, rebuilt
    from the ledger (one page), and ``ledger``: the newest entry replayed and
    the signed checkpoint that covers it.

    Args:
        external_id (str):
        cursor (None | str | Unset):
        limit (int | None | Unset):
        at (datetime.datetime | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | GrantPage
    """

    return sync_detailed(
        external_id=external_id,
        client=client,
        cursor=cursor,
        limit=limit,
        at=at,
    ).parsed


async def asyncio_detailed(
    external_id: str,
    *,
    client: AuthenticatedClient,
    cursor: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    at: datetime.datetime | None | Unset = UNSET,
) -> Response[ErrorOut | GrantPage]:
    """List Grants

     Every grant of the user, newest first. With ``at`` (RFC 3339): the
    grants as they stood at that moment, each with its status then, rebuilt
    from the ledger (one page), and ``ledger``: the newest entry replayed and
    the signed checkpoint that covers it.

    Args:
        external_id (str):
        cursor (None | str | Unset):
        limit (int | None | Unset):
        at (datetime.datetime | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | GrantPage]
    """

    kwargs = _get_kwargs(
        external_id=external_id,
        cursor=cursor,
        limit=limit,
        at=at,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    external_id: str,
    *,
    client: AuthenticatedClient,
    cursor: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
    at: datetime.datetime | None | Unset = UNSET,
) -> ErrorOut | GrantPage | None:
    """List Grants

     Every grant of the user, newest first. With ``at`` (RFC 3339): the
    grants as they stood at that moment, each with its status then, rebuilt
    from the ledger (one page), and ``ledger``: the newest entry replayed and
    the signed checkpoint that covers it.

    Args:
        external_id (str):
        cursor (None | str | Unset):
        limit (int | None | Unset):
        at (datetime.datetime | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | GrantPage
    """

    return (
        await asyncio_detailed(
            external_id=external_id,
            client=client,
            cursor=cursor,
            limit=limit,
            at=at,
        )
    ).parsed
