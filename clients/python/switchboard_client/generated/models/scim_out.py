from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ScimOut")


@_attrs_define
class ScimOut:
    """
    Attributes:
        enabled (bool):
        token_hint (None | str):
    """

    enabled: bool
    token_hint: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        enabled = self.enabled

        token_hint: None | str
        token_hint = self.token_hint

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "enabled": enabled,
                "token_hint": token_hint,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        enabled = d.pop("enabled")

        def _parse_token_hint(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        token_hint = _parse_token_hint(d.pop("token_hint"))

        scim_out = cls(
            enabled=enabled,
            token_hint=token_hint,
        )

        scim_out.additional_properties = d
        return scim_out

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
