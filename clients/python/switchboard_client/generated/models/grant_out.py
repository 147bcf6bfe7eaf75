from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.grant_out_source import GrantOutSource
from ..types import UNSET, Unset

T = TypeVar("T", bound="GrantOut")


@_attrs_define
class GrantOut:
    """
    Attributes:
        approved_event_types (list[str]):
        approved_hooks (list[str]):
        channel (str): browser; staff when staff decided on the user's behalf; organisation when an organisation grant
            gave it
        declaration_hash (str): SHA-256 of the declarations the user was shown
        expires_at (datetime.datetime | None):
        granted_at (datetime.datetime | None):
        id (str):
        identity (str):
        revoked_at (datetime.datetime | None):
        scope (str):
        server (str):
        source (GrantOutSource): user: the user allowed it; organisation: an organisation grant did
        status (str):
        org_grant_id (None | str | Unset): the organisation grant that gave it (source organisation)
    """

    approved_event_types: list[str]
    approved_hooks: list[str]
    channel: str
    declaration_hash: str
    expires_at: datetime.datetime | None
    granted_at: datetime.datetime | None
    id: str
    identity: str
    revoked_at: datetime.datetime | None
    scope: str
    server: str
    source: GrantOutSource
    status: str
    org_grant_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        approved_event_types = self.approved_event_types

        approved_hooks = self.approved_hooks

        channel = self.channel

        declaration_hash = self.declaration_hash

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        granted_at: None | str
        if isinstance(self.granted_at, datetime.datetime):
            granted_at = self.granted_at.isoformat()
        else:
            granted_at = self.granted_at

        id = self.id

        identity = self.identity

        revoked_at: None | str
        if isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at

        scope = self.scope

        server = self.server

        source = self.source.value

        status = self.status

        org_grant_id: None | str | Unset
        if isinstance(self.org_grant_id, Unset):
            org_grant_id = UNSET
        else:
            org_grant_id = self.org_grant_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "approved_event_types": approved_event_types,
                "approved_hooks": approved_hooks,
                "channel": channel,
                "declaration_hash": declaration_hash,
                "expires_at": expires_at,
                "granted_at": granted_at,
                "id": id,
                "identity": identity,
                "revoked_at": revoked_at,
                "scope": scope,
                "server": server,
                "source": source,
                "status": status,
            }
        )
        if org_grant_id is not UNSET:
            field_dict["org_grant_id"] = org_grant_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        approved_event_types = cast(list[str], d.pop("approved_event_types"))

        approved_hooks = cast(list[str], d.pop("approved_hooks"))

        channel = d.pop("channel")

        declaration_hash = d.pop("declaration_hash")

        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))

        def _parse_granted_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                granted_at_type_0 = datetime.datetime.fromisoformat(data)

                return granted_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        granted_at = _parse_granted_at(d.pop("granted_at"))

        id = d.pop("id")

        identity = d.pop("identity")

        def _parse_revoked_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revoked_at_type_0 = datetime.datetime.fromisoformat(data)

                return revoked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        revoked_at = _parse_revoked_at(d.pop("revoked_at"))

        scope = d.pop("scope")

        server = d.pop("server")

        source = GrantOutSource(d.pop("source"))

        status = d.pop("status")

        def _parse_org_grant_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        org_grant_id = _parse_org_grant_id(d.pop("org_grant_id", UNSET))

        grant_out = cls(
            approved_event_types=approved_event_types,
            approved_hooks=approved_hooks,
            channel=channel,
            declaration_hash=declaration_hash,
            expires_at=expires_at,
            granted_at=granted_at,
            id=id,
            identity=identity,
            revoked_at=revoked_at,
            scope=scope,
            server=server,
            source=source,
            status=status,
            org_grant_id=org_grant_id,
        )

        grant_out.additional_properties = d
        return grant_out

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
