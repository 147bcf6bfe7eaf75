from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ConsentCheckIn")


@_attrs_define
class ConsentCheckIn:
    """
    Attributes:
        scope (str):
        server (str):
        user (str):
        event_type (None | str | Unset):
        hook_id (None | str | Unset):
    """

    scope: str
    server: str
    user: str
    event_type: None | str | Unset = UNSET
    hook_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        scope = self.scope

        server = self.server

        user = self.user

        event_type: None | str | Unset
        if isinstance(self.event_type, Unset):
            event_type = UNSET
        else:
            event_type = self.event_type

        hook_id: None | str | Unset
        if isinstance(self.hook_id, Unset):
            hook_id = UNSET
        else:
            hook_id = self.hook_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "scope": scope,
                "server": server,
                "user": user,
            }
        )
        if event_type is not UNSET:
            field_dict["event_type"] = event_type
        if hook_id is not UNSET:
            field_dict["hook_id"] = hook_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        scope = d.pop("scope")

        server = d.pop("server")

        user = d.pop("user")

        def _parse_event_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        event_type = _parse_event_type(d.pop("event_type", UNSET))

        def _parse_hook_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        hook_id = _parse_hook_id(d.pop("hook_id", UNSET))

        consent_check_in = cls(
            scope=scope,
            server=server,
            user=user,
            event_type=event_type,
            hook_id=hook_id,
        )

        consent_check_in.additional_properties = d
        return consent_check_in

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
