from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.event_source_in_input_type_0 import EventSourceInInputType0


T = TypeVar("T", bound="EventSourceIn")


@_attrs_define
class EventSourceIn:
    """A task's ``eventSource`` exactly as the server's ``CreateTaskResult`` has it.

    Attributes:
        name (str): The event type
        initial_cursor (None | str | Unset): Where the subscription starts; null = from now
        input_ (EventSourceInInputType0 | None | Unset): Becomes the subscription's arguments (inputSchema applies)
    """

    name: str
    initial_cursor: None | str | Unset = UNSET
    input_: EventSourceInInputType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.event_source_in_input_type_0 import EventSourceInInputType0  # noqa: PLC0415

        name = self.name

        initial_cursor: None | str | Unset
        if isinstance(self.initial_cursor, Unset):
            initial_cursor = UNSET
        else:
            initial_cursor = self.initial_cursor

        input_: dict[str, Any] | None | Unset
        if isinstance(self.input_, Unset):
            input_ = UNSET
        elif isinstance(self.input_, EventSourceInInputType0):
            input_ = self.input_.to_dict()
        else:
            input_ = self.input_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
            }
        )
        if initial_cursor is not UNSET:
            field_dict["initialCursor"] = initial_cursor
        if input_ is not UNSET:
            field_dict["input"] = input_

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_source_in_input_type_0 import EventSourceInInputType0  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        def _parse_initial_cursor(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        initial_cursor = _parse_initial_cursor(d.pop("initialCursor", UNSET))

        def _parse_input_(data: object) -> EventSourceInInputType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                input_type_0 = EventSourceInInputType0.from_dict(data)

                return input_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EventSourceInInputType0 | None | Unset, data)

        input_ = _parse_input_(d.pop("input", UNSET))

        event_source_in = cls(
            name=name,
            initial_cursor=initial_cursor,
            input_=input_,
        )

        event_source_in.additional_properties = d
        return event_source_in

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
