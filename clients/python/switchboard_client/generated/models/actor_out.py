from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ActorOut")


@_attrs_define
class ActorOut:
    """
    Attributes:
        id (str):
        kind (str):
        label (str):
        on_behalf_of (None | str | Unset):
    """

    id: str
    kind: str
    label: str
    on_behalf_of: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        kind = self.kind

        label = self.label

        on_behalf_of: None | str | Unset
        if isinstance(self.on_behalf_of, Unset):
            on_behalf_of = UNSET
        else:
            on_behalf_of = self.on_behalf_of

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "kind": kind,
                "label": label,
            }
        )
        if on_behalf_of is not UNSET:
            field_dict["on_behalf_of"] = on_behalf_of

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        kind = d.pop("kind")

        label = d.pop("label")

        def _parse_on_behalf_of(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        on_behalf_of = _parse_on_behalf_of(d.pop("on_behalf_of", UNSET))

        actor_out = cls(
            id=id,
            kind=kind,
            label=label,
            on_behalf_of=on_behalf_of,
        )

        actor_out.additional_properties = d
        return actor_out

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
