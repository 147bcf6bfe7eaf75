from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="OrgGrantIn")


@_attrs_define
class OrgGrantIn:
    """
    Attributes:
        groups (list[str]): group names, or ["*"] for every user
        scopes (list[str]): conversation:read, hooks, events
        server (str):
        user_can_revoke (bool):
        event_types (list[str] | None | Unset): for the events scope; all the server offers when left out
        expires_at (datetime.datetime | None | Unset):
        hook_ids (list[str] | None | Unset): for the hooks scope; every hook the server declares when left out
    """

    groups: list[str]
    scopes: list[str]
    server: str
    user_can_revoke: bool
    event_types: list[str] | None | Unset = UNSET
    expires_at: datetime.datetime | None | Unset = UNSET
    hook_ids: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        groups = self.groups

        scopes = self.scopes

        server = self.server

        user_can_revoke = self.user_can_revoke

        event_types: list[str] | None | Unset
        if isinstance(self.event_types, Unset):
            event_types = UNSET
        elif isinstance(self.event_types, list):
            event_types = self.event_types

        else:
            event_types = self.event_types

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        hook_ids: list[str] | None | Unset
        if isinstance(self.hook_ids, Unset):
            hook_ids = UNSET
        elif isinstance(self.hook_ids, list):
            hook_ids = self.hook_ids

        else:
            hook_ids = self.hook_ids

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "groups": groups,
                "scopes": scopes,
                "server": server,
                "user_can_revoke": user_can_revoke,
            }
        )
        if event_types is not UNSET:
            field_dict["event_types"] = event_types
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if hook_ids is not UNSET:
            field_dict["hook_ids"] = hook_ids

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        groups = cast(list[str], d.pop("groups"))

        scopes = cast(list[str], d.pop("scopes"))

        server = d.pop("server")

        user_can_revoke = d.pop("user_can_revoke")

        def _parse_event_types(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                event_types_type_0 = cast(list[str], data)

                return event_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        event_types = _parse_event_types(d.pop("event_types", UNSET))

        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))

        def _parse_hook_ids(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                hook_ids_type_0 = cast(list[str], data)

                return hook_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        hook_ids = _parse_hook_ids(d.pop("hook_ids", UNSET))

        org_grant_in = cls(
            groups=groups,
            scopes=scopes,
            server=server,
            user_can_revoke=user_can_revoke,
            event_types=event_types,
            expires_at=expires_at,
            hook_ids=hook_ids,
        )

        org_grant_in.additional_properties = d
        return org_grant_in

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
