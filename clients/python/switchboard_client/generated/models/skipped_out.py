from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.skipped_out_reason import SkippedOutReason
from ..types import UNSET, Unset

T = TypeVar("T", bound="SkippedOut")


@_attrs_define
class SkippedOut:
    """
    Attributes:
        reason (SkippedOutReason):
        server (str):
        detail (None | str | Unset): for disabled: blocked, host_policy, timeouts, host_managed; for no_consent:
            consent_unavailable when consent could not be read (nothing was sent)
    """

    reason: SkippedOutReason
    server: str
    detail: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reason = self.reason.value

        server = self.server

        detail: None | str | Unset
        if isinstance(self.detail, Unset):
            detail = UNSET
        else:
            detail = self.detail

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reason": reason,
                "server": server,
            }
        )
        if detail is not UNSET:
            field_dict["detail"] = detail

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        reason = SkippedOutReason(d.pop("reason"))

        server = d.pop("server")

        def _parse_detail(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        detail = _parse_detail(d.pop("detail", UNSET))

        skipped_out = cls(
            reason=reason,
            server=server,
            detail=detail,
        )

        skipped_out.additional_properties = d
        return skipped_out

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
