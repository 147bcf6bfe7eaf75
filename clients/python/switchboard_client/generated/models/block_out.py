from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="BlockOut")


@_attrs_define
class BlockOut:
    """What the kill switch stopped (zero for an unblock: it restores nothing).

    Attributes:
        blocked (bool):
        grants_suspended (int):
        subscriptions_revoked (int):
    """

    blocked: bool
    grants_suspended: int
    subscriptions_revoked: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        blocked = self.blocked

        grants_suspended = self.grants_suspended

        subscriptions_revoked = self.subscriptions_revoked

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "blocked": blocked,
                "grants_suspended": grants_suspended,
                "subscriptions_revoked": subscriptions_revoked,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        blocked = d.pop("blocked")

        grants_suspended = d.pop("grants_suspended")

        subscriptions_revoked = d.pop("subscriptions_revoked")

        block_out = cls(
            blocked=blocked,
            grants_suspended=grants_suspended,
            subscriptions_revoked=subscriptions_revoked,
        )

        block_out.additional_properties = d
        return block_out

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
