from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.unsubscribe_out import UnsubscribeOut


T = TypeVar("T", bound="RevokedOut")


@_attrs_define
class RevokedOut:
    """
    Attributes:
        id (str):
        status (str):
        unsubscribe (None | Unset | UnsubscribeOut):
    """

    id: str
    status: str
    unsubscribe: None | Unset | UnsubscribeOut = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.unsubscribe_out import UnsubscribeOut  # noqa: PLC0415

        id = self.id

        status = self.status

        unsubscribe: dict[str, Any] | None | Unset
        if isinstance(self.unsubscribe, Unset):
            unsubscribe = UNSET
        elif isinstance(self.unsubscribe, UnsubscribeOut):
            unsubscribe = self.unsubscribe.to_dict()
        else:
            unsubscribe = self.unsubscribe

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "status": status,
            }
        )
        if unsubscribe is not UNSET:
            field_dict["unsubscribe"] = unsubscribe

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.unsubscribe_out import UnsubscribeOut  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        status = d.pop("status")

        def _parse_unsubscribe(data: object) -> None | Unset | UnsubscribeOut:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                unsubscribe_type_0 = UnsubscribeOut.from_dict(data)

                return unsubscribe_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UnsubscribeOut, data)

        unsubscribe = _parse_unsubscribe(d.pop("unsubscribe", UNSET))

        revoked_out = cls(
            id=id,
            status=status,
            unsubscribe=unsubscribe,
        )

        revoked_out.additional_properties = d
        return revoked_out

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
