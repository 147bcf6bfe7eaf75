from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="UserOut")


@_attrs_define
class UserOut:
    """
    Attributes:
        created_at (datetime.datetime):
        display_name (str):
        email (str):
        external_id (str):
        groups (list[str]):
        id (str):
    """

    created_at: datetime.datetime
    display_name: str
    email: str
    external_id: str
    groups: list[str]
    id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        display_name = self.display_name

        email = self.email

        external_id = self.external_id

        groups = self.groups

        id = self.id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "display_name": display_name,
                "email": email,
                "external_id": external_id,
                "groups": groups,
                "id": id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        display_name = d.pop("display_name")

        email = d.pop("email")

        external_id = d.pop("external_id")

        groups = cast(list[str], d.pop("groups"))

        id = d.pop("id")

        user_out = cls(
            created_at=created_at,
            display_name=display_name,
            email=email,
            external_id=external_id,
            groups=groups,
            id=id,
        )

        user_out.additional_properties = d
        return user_out

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
