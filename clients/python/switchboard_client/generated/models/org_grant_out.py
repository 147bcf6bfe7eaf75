from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="OrgGrantOut")


@_attrs_define
class OrgGrantOut:
    """
    Attributes:
        created_at (datetime.datetime):
        created_by (str): the staff member's email, or the API key's label
        event_types (list[str]):
        expires_at (datetime.datetime | None):
        groups (list[str]):
        hook_ids (list[str]):
        id (str):
        scopes (list[str]):
        server (str):
        status (str): active, suspended (the server changed), expired, ended
        user_can_revoke (bool):
        ended_at (datetime.datetime | None | Unset):
        ended_by (None | str | Unset):
    """

    created_at: datetime.datetime
    created_by: str
    event_types: list[str]
    expires_at: datetime.datetime | None
    groups: list[str]
    hook_ids: list[str]
    id: str
    scopes: list[str]
    server: str
    status: str
    user_can_revoke: bool
    ended_at: datetime.datetime | None | Unset = UNSET
    ended_by: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        created_by = self.created_by

        event_types = self.event_types

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        groups = self.groups

        hook_ids = self.hook_ids

        id = self.id

        scopes = self.scopes

        server = self.server

        status = self.status

        user_can_revoke = self.user_can_revoke

        ended_at: None | str | Unset
        if isinstance(self.ended_at, Unset):
            ended_at = UNSET
        elif isinstance(self.ended_at, datetime.datetime):
            ended_at = self.ended_at.isoformat()
        else:
            ended_at = self.ended_at

        ended_by: None | str | Unset
        if isinstance(self.ended_by, Unset):
            ended_by = UNSET
        else:
            ended_by = self.ended_by

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "created_by": created_by,
                "event_types": event_types,
                "expires_at": expires_at,
                "groups": groups,
                "hook_ids": hook_ids,
                "id": id,
                "scopes": scopes,
                "server": server,
                "status": status,
                "user_can_revoke": user_can_revoke,
            }
        )
        if ended_at is not UNSET:
            field_dict["ended_at"] = ended_at
        if ended_by is not UNSET:
            field_dict["ended_by"] = ended_by

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        created_by = d.pop("created_by")

        event_types = cast(list[str], d.pop("event_types"))

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

        groups = cast(list[str], d.pop("groups"))

        hook_ids = cast(list[str], d.pop("hook_ids"))

        id = d.pop("id")

        scopes = cast(list[str], d.pop("scopes"))

        server = d.pop("server")

        status = d.pop("status")

        user_can_revoke = d.pop("user_can_revoke")

        def _parse_ended_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ended_at_type_0 = datetime.datetime.fromisoformat(data)

                return ended_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        ended_at = _parse_ended_at(d.pop("ended_at", UNSET))

        def _parse_ended_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ended_by = _parse_ended_by(d.pop("ended_by", UNSET))

        org_grant_out = cls(
            created_at=created_at,
            created_by=created_by,
            event_types=event_types,
            expires_at=expires_at,
            groups=groups,
            hook_ids=hook_ids,
            id=id,
            scopes=scopes,
            server=server,
            status=status,
            user_can_revoke=user_can_revoke,
            ended_at=ended_at,
            ended_by=ended_by,
        )

        org_grant_out.additional_properties = d
        return org_grant_out

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
