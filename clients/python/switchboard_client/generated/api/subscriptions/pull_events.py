from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_out import ErrorOut
from ...models.pulled_page import PulledPage
from ...types import UNSET, Response, Unset


def _get_kwargs(
    subscription_id: str,
    *,
    after: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_after: None | str | Unset
    if isinstance(after, Unset):
        json_after = UNSET
    else:
        json_after = after
    params["after"] = json_after

    json_limit: int | None | Unset
    if isinstance(limit, Unset):
        json_limit = UNSET
    else:
        json_limit = limit
    params["limit"] = json_limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/subscriptions/{subscription_id}/events".format(
            subscription_id=quote(str(subscription_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorOut | PulledPage | None:
    if response.status_code == 200:
        response_200 = PulledPage.from_dict(response.json())

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

    if response.status_code == 503:
        response_503 = ErrorOut.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorOut | PulledPage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    after: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
) -> Response[ErrorOut | PulledPage]:
    """Pull Events

     Pull delivery: the same bodies the host endpoint receives, in order.
    Events are handed over only while the user's consent holds at the pull
    (without their data otherwise); consent that cannot be read answers 503
    ``consent_unavailable`` (``forward_check_failed`` if the check itself
    failed), and nothing is lost.

    Args:
        subscription_id (str):
        after (None | str | Unset):
        limit (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | PulledPage]
    """

    kwargs = _get_kwargs(
        subscription_id=subscription_id,
        after=after,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    after: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
) -> ErrorOut | PulledPage | None:
    """Pull Events

     Pull delivery: the same bodies the host endpoint receives, in order.
    Events are handed over only while the user's consent holds at the pull
    (without their data otherwise); consent that cannot be read answers 503
    ``consent_unavailable`` (``forward_check_failed`` if the check itself
    failed), and nothing is lost.

    Args:
        subscription_id (str):
        after (None | str | Unset):
        limit (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | PulledPage
    """

    return sync_detailed(
        subscription_id=subscription_id,
        client=client,
        after=after,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    after: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
) -> Response[ErrorOut | PulledPage]:
    """Pull Events

     Pull delivery: the same bodies the host endpoint receives, in order.
    Events are handed over only while the user's consent holds at the pull
    (without their data otherwise); consent that cannot be read answers 503
    ``consent_unavailable`` (``forward_check_failed`` if the check itself
    failed), and nothing is lost.

    Args:
        subscription_id (str):
        after (None | str | Unset):
        limit (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorOut | PulledPage]
    """

    kwargs = _get_kwargs(
        subscription_id=subscription_id,
        after=after,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    after: None | str | Unset = UNSET,
    limit: int | None | Unset = UNSET,
) -> ErrorOut | PulledPage | None:
    """Pull Events

     Pull delivery: the same bodies the host endpoint receives, in order.
    Events are handed over only while the user's consent holds at the pull
    (without their data otherwise); consent that cannot be read answers 503
    ``consent_unavailable`` (``forward_check_failed`` if the check itself
    failed), and nothing is lost.

    Args:
        subscription_id (str):
        after (None | str | Unset):
        limit (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorOut | PulledPage
    """

    return (
        await asyncio_detailed(
            subscription_id=subscription_id,
            client=client,
            after=after,
            limit=limit,
        )
    ).parsed
