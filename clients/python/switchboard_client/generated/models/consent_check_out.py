from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.consent_check_out_source_type_0 import ConsentCheckOutSourceType0
from ..types import UNSET, Unset

T = TypeVar("T", bound="ConsentCheckOut")


@_attrs_define
class ConsentCheckOut:
    """
    Attributes:
        allowed (bool):
        reason (str): active_grant, no_consent, not_approved_for_this_item, denied_by_policy
        grant_id (None | str | Unset):
        source (ConsentCheckOutSourceType0 | None | Unset): who allowed it, when allowed: the user, or an organisation
            grant
    """

    allowed: bool
    reason: str
    grant_id: None | str | Unset = UNSET
    source: ConsentCheckOutSourceType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        allowed = self.allowed

        reason = self.reason

        grant_id: None | str | Unset
        if isinstance(self.grant_id, Unset):
            grant_id = UNSET
        else:
            grant_id = self.grant_id

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        elif isinstance(self.source, ConsentCheckOutSourceType0):
            source = self.source.value
        else:
            source = self.source

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "allowed": allowed,
                "reason": reason,
            }
        )
        if grant_id is not UNSET:
            field_dict["grant_id"] = grant_id
        if source is not UNSET:
            field_dict["source"] = source

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        allowed = d.pop("allowed")

        reason = d.pop("reason")

        def _parse_grant_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        grant_id = _parse_grant_id(d.pop("grant_id", UNSET))

        def _parse_source(data: object) -> ConsentCheckOutSourceType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                source_type_0 = ConsentCheckOutSourceType0(data)

                return source_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConsentCheckOutSourceType0 | None | Unset, data)

        source = _parse_source(d.pop("source", UNSET))

        consent_check_out = cls(
            allowed=allowed,
            reason=reason,
            grant_id=grant_id,
            source=source,
        )

        consent_check_out.additional_properties = d
        return consent_check_out

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
