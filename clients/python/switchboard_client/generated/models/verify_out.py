from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.broken_out import BrokenOut


T = TypeVar("T", bound="VerifyOut")


@_attrs_define
class VerifyOut:
    """
    Attributes:
        checked (int):
        ok (bool):
        first_broken (BrokenOut | None | Unset):
    """

    checked: int
    ok: bool
    first_broken: BrokenOut | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.broken_out import BrokenOut  # noqa: PLC0415

        checked = self.checked

        ok = self.ok

        first_broken: dict[str, Any] | None | Unset
        if isinstance(self.first_broken, Unset):
            first_broken = UNSET
        elif isinstance(self.first_broken, BrokenOut):
            first_broken = self.first_broken.to_dict()
        else:
            first_broken = self.first_broken

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checked": checked,
                "ok": ok,
            }
        )
        if first_broken is not UNSET:
            field_dict["first_broken"] = first_broken

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.broken_out import BrokenOut  # noqa: PLC0415

        d = dict(src_dict)
        checked = d.pop("checked")

        ok = d.pop("ok")

        def _parse_first_broken(data: object) -> BrokenOut | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                first_broken_type_0 = BrokenOut.from_dict(data)

                return first_broken_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BrokenOut | None | Unset, data)

        first_broken = _parse_first_broken(d.pop("first_broken", UNSET))

        verify_out = cls(
            checked=checked,
            ok=ok,
            first_broken=first_broken,
        )

        verify_out.additional_properties = d
        return verify_out

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
