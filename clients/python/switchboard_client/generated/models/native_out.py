from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="NativeOut")


@_attrs_define
class NativeOut:
    """
    Attributes:
        dialect (str):
        event (str): The name the host sent
        normalized (None | str): The normalized event it was evaluated as
        reason (None | str | Unset): Why nothing was evaluated: no_normalized_twin (a known event with no normalized
            twin) or unknown_event (a name the dialect's table does not list); either way the event was recorded and nothing
            fired
    """

    dialect: str
    event: str
    normalized: None | str
    reason: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        dialect = self.dialect

        event = self.event

        normalized: None | str
        normalized = self.normalized

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dialect": dialect,
                "event": event,
                "normalized": normalized,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        dialect = d.pop("dialect")

        event = d.pop("event")

        def _parse_normalized(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        normalized = _parse_normalized(d.pop("normalized"))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        native_out = cls(
            dialect=dialect,
            event=event,
            normalized=normalized,
            reason=reason,
        )

        native_out.additional_properties = d
        return native_out

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
