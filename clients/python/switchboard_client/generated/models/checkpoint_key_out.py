from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CheckpointKeyOut")


@_attrs_define
class CheckpointKeyOut:
    """
    Attributes:
        key_id (str):
        name (str):
        public_key (str):
        vkey (str):
    """

    key_id: str
    name: str
    public_key: str
    vkey: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        key_id = self.key_id

        name = self.name

        public_key = self.public_key

        vkey = self.vkey

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "key_id": key_id,
                "name": name,
                "public_key": public_key,
                "vkey": vkey,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        key_id = d.pop("key_id")

        name = d.pop("name")

        public_key = d.pop("public_key")

        vkey = d.pop("vkey")

        checkpoint_key_out = cls(
            key_id=key_id,
            name=name,
            public_key=public_key,
            vkey=vkey,
        )

        checkpoint_key_out.additional_properties = d
        return checkpoint_key_out

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
