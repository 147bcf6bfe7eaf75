from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="BrokenOut")


@_attrs_define
class BrokenOut:
    """
    Attributes:
        reason (str):
        checkpoint (int | None | Unset):
        id (int | None | Unset):
        leaf_index (int | None | Unset):
    """

    reason: str
    checkpoint: int | None | Unset = UNSET
    id: int | None | Unset = UNSET
    leaf_index: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reason = self.reason

        checkpoint: int | None | Unset
        if isinstance(self.checkpoint, Unset):
            checkpoint = UNSET
        else:
            checkpoint = self.checkpoint

        id: int | None | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        leaf_index: int | None | Unset
        if isinstance(self.leaf_index, Unset):
            leaf_index = UNSET
        else:
            leaf_index = self.leaf_index

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reason": reason,
            }
        )
        if checkpoint is not UNSET:
            field_dict["checkpoint"] = checkpoint
        if id is not UNSET:
            field_dict["id"] = id
        if leaf_index is not UNSET:
            field_dict["leaf_index"] = leaf_index

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        reason = d.pop("reason")

        def _parse_checkpoint(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        checkpoint = _parse_checkpoint(d.pop("checkpoint", UNSET))

        def _parse_id(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_leaf_index(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        leaf_index = _parse_leaf_index(d.pop("leaf_index", UNSET))

        broken_out = cls(
            reason=reason,
            checkpoint=checkpoint,
            id=id,
            leaf_index=leaf_index,
        )

        broken_out.additional_properties = d
        return broken_out

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
