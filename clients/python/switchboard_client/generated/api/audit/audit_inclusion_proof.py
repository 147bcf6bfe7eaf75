from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_out import ErrorOut
from ...models.inclusion_out import InclusionOut
from ...types import UNSET, Response


def _get_kwargs(
    *,
    entry: int,
    tree_size: int,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["entry"] = entry

    params["tree_size"] = tree_size

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/audit/proof/inclusion",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorOut | InclusionOut | None:
    if response.status_code == 200:
        response_200 = InclusionOut.from_dict(response.json())

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
) -> Response[ErrorOut | InclusionOut]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    entry: int,
    tree_size: int,
) -> Response[ErrorOut | InclusionOut]:
    """Audit Inclusion Proof

     RFC 9162 §2.1.3: the entry's audit path in the tree of ``tree_size``
    (a size a checkpoint was issued for).

    Args:
        entry (int):
        tree_size (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | InclusionOut]
    """

    kwargs = _get_kwargs(
        entry=entry,
        tree_size=tree_size,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    entry: int,
    tree_size: int,
) -> ErrorOut | InclusionOut | None:
    """Audit Inclusion Proof

     RFC 9162 §2.1.3: the entry's audit path in the tree of ``tree_size``
    (a size a checkpoint was issued for).

    Args:
        entry (int):
        tree_size (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | InclusionOut
    """

    return sync_detailed(
        client=client,
        entry=entry,
        tree_size=tree_size,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    entry: int,
    tree_size: int,
) -> Response[ErrorOut | InclusionOut]:
    """Audit Inclusion Proof

     RFC 9162 §2.1.3: the entry's audit path in the tree of ``tree_size``
    (a size a checkpoint was issued for).

    Args:
        entry (int):
        tree_size (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | InclusionOut]
    """

    kwargs = _get_kwargs(
        entry=entry,
        tree_size=tree_size,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    entry: int,
    tree_size: int,
) -> ErrorOut | InclusionOut | None:
    """Audit Inclusion Proof

     RFC 9162 §2.1.3: the entry's audit path in the tree of ``tree_size``
    (a size a checkpoint was issued for).

    Args:
        entry (int):
        tree_size (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | InclusionOut
    """

    return (
        await asyncio_detailed(
            client=client,
            entry=entry,
            tree_size=tree_size,
        )
    ).parsed
