from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.as_of_ledger_out import AsOfLedgerOut
    from ..models.grant_out import GrantOut


T = TypeVar("T", bound="GrantPage")


@_attrs_define
class GrantPage:
    """
    Attributes:
        items (list[GrantOut]):
        next_cursor (None | str):
        ledger (AsOfLedgerOut | None | Unset): with at only (null otherwise): where in the host's transparency log the
            answer is read, and the signed checkpoint that covers it
    """

    items: list[GrantOut]
    next_cursor: None | str
    ledger: AsOfLedgerOut | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.as_of_ledger_out import AsOfLedgerOut  # noqa: PLC0415

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        next_cursor: None | str
        next_cursor = self.next_cursor

        ledger: dict[str, Any] | None | Unset
        if isinstance(self.ledger, Unset):
            ledger = UNSET
        elif isinstance(self.ledger, AsOfLedgerOut):
            ledger = self.ledger.to_dict()
        else:
            ledger = self.ledger

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "items": items,
                "next_cursor": next_cursor,
            }
        )
        if ledger is not UNSET:
            field_dict["ledger"] = ledger

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.as_of_ledger_out import AsOfLedgerOut  # noqa: PLC0415
        from ..models.grant_out import GrantOut  # noqa: PLC0415

        d = dict(src_dict)
        items = []
        _items = d.pop("items")
        for items_item_data in _items:
            items_item = GrantOut.from_dict(items_item_data)

            items.append(items_item)

        def _parse_next_cursor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_cursor = _parse_next_cursor(d.pop("next_cursor"))

        def _parse_ledger(data: object) -> AsOfLedgerOut | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                ledger_type_0 = AsOfLedgerOut.from_dict(data)

                return ledger_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AsOfLedgerOut | None | Unset, data)

        ledger = _parse_ledger(d.pop("ledger", UNSET))

        grant_page = cls(
            items=items,
            next_cursor=next_cursor,
            ledger=ledger,
        )

        grant_page.additional_properties = d
        return grant_page

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
