from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.pulled_item_data import PulledItemData


T = TypeVar("T", bound="PulledItem")


@_attrs_define
class PulledItem:
    """
    Attributes:
        data (PulledItemData):
        timestamp (str):
        type_ (str):
        webhook_id (str):
    """

    data: PulledItemData
    timestamp: str
    type_: str
    webhook_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data.to_dict()

        timestamp = self.timestamp

        type_ = self.type_

        webhook_id = self.webhook_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "timestamp": timestamp,
                "type": type_,
                "webhook_id": webhook_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.pulled_item_data import PulledItemData  # noqa: PLC0415

        d = dict(src_dict)
        data = PulledItemData.from_dict(d.pop("data"))

        timestamp = d.pop("timestamp")

        type_ = d.pop("type")

        webhook_id = d.pop("webhook_id")

        pulled_item = cls(
            data=data,
            timestamp=timestamp,
            type_=type_,
            webhook_id=webhook_id,
        )

        pulled_item.additional_properties = d
        return pulled_item

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
