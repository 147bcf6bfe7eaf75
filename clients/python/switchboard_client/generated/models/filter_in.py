from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.filter_in_priority_type_0_item import FilterInPriorityType0Item
from ..types import UNSET, Unset

T = TypeVar("T", bound="FilterIn")


@_attrs_define
class FilterIn:
    """Every given field must match (AND); tags match if any does.

    Attributes:
        event_types (list[str] | None | Unset): Exact names or prefix patterns: `github.*`, `*`
        priority (list[FilterInPriorityType0Item] | None | Unset): An event without a priority counts as normal
        tags (list[str] | None | Unset):
    """

    event_types: list[str] | None | Unset = UNSET
    priority: list[FilterInPriorityType0Item] | None | Unset = UNSET
    tags: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        event_types: list[str] | None | Unset
        if isinstance(self.event_types, Unset):
            event_types = UNSET
        elif isinstance(self.event_types, list):
            event_types = self.event_types

        else:
            event_types = self.event_types

        priority: list[str] | None | Unset
        if isinstance(self.priority, Unset):
            priority = UNSET
        elif isinstance(self.priority, list):
            priority = []
            for priority_type_0_item_data in self.priority:
                priority_type_0_item = priority_type_0_item_data.value
                priority.append(priority_type_0_item)

        else:
            priority = self.priority

        tags: list[str] | None | Unset
        if isinstance(self.tags, Unset):
            tags = UNSET
        elif isinstance(self.tags, list):
            tags = self.tags

        else:
            tags = self.tags

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if event_types is not UNSET:
            field_dict["event_types"] = event_types
        if priority is not UNSET:
            field_dict["priority"] = priority
        if tags is not UNSET:
            field_dict["tags"] = tags

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_event_types(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                event_types_type_0 = cast(list[str], data)

                return event_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        event_types = _parse_event_types(d.pop("event_types", UNSET))

        def _parse_priority(data: object) -> list[FilterInPriorityType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                priority_type_0 = []
                _priority_type_0 = data
                for priority_type_0_item_data in _priority_type_0:
                    priority_type_0_item = FilterInPriorityType0Item(priority_type_0_item_data)

                    priority_type_0.append(priority_type_0_item)

                return priority_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[FilterInPriorityType0Item] | None | Unset, data)

        priority = _parse_priority(d.pop("priority", UNSET))

        def _parse_tags(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tags_type_0 = cast(list[str], data)

                return tags_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        tags = _parse_tags(d.pop("tags", UNSET))

        filter_in = cls(
            event_types=event_types,
            priority=priority,
            tags=tags,
        )

        filter_in.additional_properties = d
        return filter_in

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
