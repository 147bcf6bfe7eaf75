from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="DrainOut")


@_attrs_define
class DrainOut:
    """
    Attributes:
        format_ (str):
        lag_seconds (float):
        last_delivered_id (str):
        status (str):
        url (str):
        last_error (None | str | Unset):
    """

    format_: str
    lag_seconds: float
    last_delivered_id: str
    status: str
    url: str
    last_error: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        format_ = self.format_

        lag_seconds = self.lag_seconds

        last_delivered_id = self.last_delivered_id

        status = self.status

        url = self.url

        last_error: None | str | Unset
        if isinstance(self.last_error, Unset):
            last_error = UNSET
        else:
            last_error = self.last_error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "format": format_,
                "lag_seconds": lag_seconds,
                "last_delivered_id": last_delivered_id,
                "status": status,
                "url": url,
            }
        )
        if last_error is not UNSET:
            field_dict["last_error"] = last_error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        format_ = d.pop("format")

        lag_seconds = d.pop("lag_seconds")

        last_delivered_id = d.pop("last_delivered_id")

        status = d.pop("status")

        url = d.pop("url")

        def _parse_last_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_error = _parse_last_error(d.pop("last_error", UNSET))

        drain_out = cls(
            format_=format_,
            lag_seconds=lag_seconds,
            last_delivered_id=last_delivered_id,
            status=status,
            url=url,
            last_error=last_error,
        )

        drain_out.additional_properties = d
        return drain_out

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
