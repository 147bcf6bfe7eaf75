from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="InclusionOut")


@_attrs_define
class InclusionOut:
    """
    Attributes:
        hashes (list[str]):
        leaf_index (int):
        tree_size (int):
    """

    hashes: list[str]
    leaf_index: int
    tree_size: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        hashes = self.hashes

        leaf_index = self.leaf_index

        tree_size = self.tree_size

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hashes": hashes,
                "leaf_index": leaf_index,
                "tree_size": tree_size,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        hashes = cast(list[str], d.pop("hashes"))

        leaf_index = d.pop("leaf_index")

        tree_size = d.pop("tree_size")

        inclusion_out = cls(
            hashes=hashes,
            leaf_index=leaf_index,
            tree_size=tree_size,
        )

        inclusion_out.additional_properties = d
        return inclusion_out

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
