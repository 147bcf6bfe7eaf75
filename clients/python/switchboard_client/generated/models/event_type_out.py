from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.event_type_out_input_schema import EventTypeOutInputSchema
    from ..models.event_type_out_payload_schema import EventTypeOutPayloadSchema


T = TypeVar("T", bound="EventTypeOut")


@_attrs_define
class EventTypeOut:
    """
    Attributes:
        delivery (list[str]):
        description (str):
        input_schema (EventTypeOutInputSchema):
        name (str):
        payload_schema (EventTypeOutPayloadSchema):
    """

    delivery: list[str]
    description: str
    input_schema: EventTypeOutInputSchema
    name: str
    payload_schema: EventTypeOutPayloadSchema
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        delivery = self.delivery

        description = self.description

        input_schema = self.input_schema.to_dict()

        name = self.name

        payload_schema = self.payload_schema.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "delivery": delivery,
                "description": description,
                "input_schema": input_schema,
                "name": name,
                "payload_schema": payload_schema,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_type_out_input_schema import EventTypeOutInputSchema  # noqa: PLC0415
        from ..models.event_type_out_payload_schema import EventTypeOutPayloadSchema  # noqa: PLC0415

        d = dict(src_dict)
        delivery = cast(list[str], d.pop("delivery"))

        description = d.pop("description")

        input_schema = EventTypeOutInputSchema.from_dict(d.pop("input_schema"))

        name = d.pop("name")

        payload_schema = EventTypeOutPayloadSchema.from_dict(d.pop("payload_schema"))

        event_type_out = cls(
            delivery=delivery,
            description=description,
            input_schema=input_schema,
            name=name,
            payload_schema=payload_schema,
        )

        event_type_out.additional_properties = d
        return event_type_out

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
