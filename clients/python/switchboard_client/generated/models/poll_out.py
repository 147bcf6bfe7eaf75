from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PollOut")


@_attrs_define
class PollOut:
    """Poll mode: when the console polls next and when it last did.

    Attributes:
        last_polled_at (datetime.datetime | None):
        next_poll_at (datetime.datetime | None):
    """

    last_polled_at: datetime.datetime | None
    next_poll_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        last_polled_at: None | str
        if isinstance(self.last_polled_at, datetime.datetime):
            last_polled_at = self.last_polled_at.isoformat()
        else:
            last_polled_at = self.last_polled_at

        next_poll_at: None | str
        if isinstance(self.next_poll_at, datetime.datetime):
            next_poll_at = self.next_poll_at.isoformat()
        else:
            next_poll_at = self.next_poll_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "last_polled_at": last_polled_at,
                "next_poll_at": next_poll_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_last_polled_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_polled_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_polled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_polled_at = _parse_last_polled_at(d.pop("last_polled_at"))

        def _parse_next_poll_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_poll_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_poll_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_poll_at = _parse_next_poll_at(d.pop("next_poll_at"))

        poll_out = cls(
            last_polled_at=last_polled_at,
            next_poll_at=next_poll_at,
        )

        poll_out.additional_properties = d
        return poll_out

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
