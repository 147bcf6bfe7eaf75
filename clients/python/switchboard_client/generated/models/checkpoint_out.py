from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.checkpoint_key_out import CheckpointKeyOut


T = TypeVar("T", bound="CheckpointOut")


@_attrs_define
class CheckpointOut:
    """
    Attributes:
        key (CheckpointKeyOut):
        note (str):
        origin (str):
        root_hash (str):
        tree_size (int):
    """

    key: CheckpointKeyOut
    note: str
    origin: str
    root_hash: str
    tree_size: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        key = self.key.to_dict()

        note = self.note

        origin = self.origin

        root_hash = self.root_hash

        tree_size = self.tree_size

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "key": key,
                "note": note,
                "origin": origin,
                "root_hash": root_hash,
                "tree_size": tree_size,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.checkpoint_key_out import CheckpointKeyOut  # noqa: PLC0415

        d = dict(src_dict)
        key = CheckpointKeyOut.from_dict(d.pop("key"))

        note = d.pop("note")

        origin = d.pop("origin")

        root_hash = d.pop("root_hash")

        tree_size = d.pop("tree_size")

        checkpoint_out = cls(
            key=key,
            note=note,
            origin=origin,
            root_hash=root_hash,
            tree_size=tree_size,
        )

        checkpoint_out.additional_properties = d
        return checkpoint_out

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
