import datetime
from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_out import ErrorOut
from ...models.export_audit_format import ExportAuditFormat
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    kind: None | str | Unset = UNSET,
    user: None | str | Unset = UNSET,
    server: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    format_: ExportAuditFormat | Unset = ExportAuditFormat.JSONL,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_kind: None | str | Unset
    if isinstance(kind, Unset):
        json_kind = UNSET
    else:
        json_kind = kind
    params["kind"] = json_kind

    json_user: None | str | Unset
    if isinstance(user, Unset):
        json_user = UNSET
    else:
        json_user = user
    params["user"] = json_user

    json_server: None | str | Unset
    if isinstance(server, Unset):
        json_server = UNSET
    else:
        json_server = server
    params["server"] = json_server

    json_since: None | str | Unset
    if isinstance(since, Unset):
        json_since = UNSET
    elif isinstance(since, datetime.datetime):
        json_since = since.isoformat()
    else:
        json_since = since
    params["since"] = json_since

    json_until: None | str | Unset
    if isinstance(until, Unset):
        json_until = UNSET
    elif isinstance(until, datetime.datetime):
        json_until = until.isoformat()
    else:
        json_until = until
    params["until"] = json_until

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_.value

    params["format"] = json_format_

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/audit/export",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ErrorOut | None:
    if response.status_code == 200:
        response_200 = cast(Any, None)
        return response_200

    if response.status_code == 400:
        response_400 = ErrorOut.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorOut.from_dict(response.json())

        return response_401

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
    *,
    client: AuthenticatedClient,
    kind: None | str | Unset = UNSET,
    user: None | str | Unset = UNSET,
    server: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    format_: ExportAuditFormat | Unset = ExportAuditFormat.JSONL,
) -> Response[Any | ErrorOut]:
    """Export Audit

    Args:
        kind (None | str | Unset):
        user (None | str | Unset):
        server (None | str | Unset):
        since (datetime.datetime | None | Unset):
        until (datetime.datetime | None | Unset):
        format_ (ExportAuditFormat | Unset):  Default: ExportAuditFormat.JSONL.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorOut]
    """

    kwargs = _get_kwargs(
        kind=kind,
        user=user,
        server=server,
        since=since,
        until=until,
        format_=format_,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    kind: None | str | Unset = UNSET,
    user: None | str | Unset = UNSET,
    server: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    format_: ExportAuditFormat | Unset = ExportAuditFormat.JSONL,
) -> Any | ErrorOut | None:
    """Export Audit

    Args:
        kind (None | str | Unset):
        user (None | str | Unset):
        server (None | str | Unset):
        since (datetime.datetime | None | Unset):
        until (datetime.datetime | None | Unset):
        format_ (ExportAuditFormat | Unset):  Default: ExportAuditFormat.JSONL.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorOut
    """

    return sync_detailed(
        client=client,
        kind=kind,
        user=user,
        server=server,
        since=since,
        until=until,
        format_=format_,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    kind: None | str | Unset = UNSET,
    user: None | str | Unset = UNSET,
    server: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    format_: ExportAuditFormat | Unset = ExportAuditFormat.JSONL,
) -> Response[Any | ErrorOut]:
    """Export Audit

    Args:
        kind (None | str | Unset):
        user (None | str | Unset):
        server (None | str | Unset):
        since (datetime.datetime | None | Unset):
        until (datetime.datetime | None | Unset):
        format_ (ExportAuditFormat | Unset):  Default: ExportAuditFormat.JSONL.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorOut]
    """

    kwargs = _get_kwargs(
        kind=kind,
        user=user,
        server=server,
        since=since,
        until=until,
        format_=format_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    kind: None | str | Unset = UNSET,
    user: None | str | Unset = UNSET,
    server: None | str | Unset = UNSET,
    since: datetime.datetime | None | Unset = UNSET,
    until: datetime.datetime | None | Unset = UNSET,
    format_: ExportAuditFormat | Unset = ExportAuditFormat.JSONL,
) -> Any | ErrorOut | None:
    """Export Audit

    Args:
        kind (None | str | Unset):
        user (None | str | Unset):
        server (None | str | Unset):
        since (datetime.datetime | None | Unset):
        until (datetime.datetime | None | Unset):
        format_ (ExportAuditFormat | Unset):  Default: ExportAuditFormat.JSONL.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorOut
    """

    return (
        await asyncio_detailed(
            client=client,
            kind=kind,
            user=user,
            server=server,
            since=since,
            until=until,
            format_=format_,
        )
    ).parsed
