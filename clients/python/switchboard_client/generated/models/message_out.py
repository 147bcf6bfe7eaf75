from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.message_item_out import MessageItemOut
    from ..models.skipped_out import SkippedOut


T = TypeVar("T", bound="MessageOut")


@_attrs_define
class MessageOut:
    """
    Attributes:
        budget_ms (int):
        context (str): every injected piece in priority order, each wrapped in <external-context server=… source=…
            trust=…> to present as untrusted
        elapsed_ms (int):
        items (list[MessageItemOut]):
        skipped (list[SkippedOut]):
    """

    budget_ms: int
    context: str
    elapsed_ms: int
    items: list[MessageItemOut]
    skipped: list[SkippedOut]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        budget_ms = self.budget_ms

        context = self.context

        elapsed_ms = self.elapsed_ms

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        skipped = []
        for skipped_item_data in self.skipped:
            skipped_item = skipped_item_data.to_dict()
            skipped.append(skipped_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "budget_ms": budget_ms,
                "context": context,
                "elapsed_ms": elapsed_ms,
                "items": items,
                "skipped": skipped,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_item_out import MessageItemOut  # noqa: PLC0415
        from ..models.skipped_out import SkippedOut  # noqa: PLC0415

        d = dict(src_dict)
        budget_ms = d.pop("budget_ms")

        context = d.pop("context")

        elapsed_ms = d.pop("elapsed_ms")

        items = []
        _items = d.pop("items")
        for items_item_data in _items:
            items_item = MessageItemOut.from_dict(items_item_data)

            items.append(items_item)

        skipped = []
        _skipped = d.pop("skipped")
        for skipped_item_data in _skipped:
            skipped_item = SkippedOut.from_dict(skipped_item_data)

            skipped.append(skipped_item)

        message_out = cls(
            budget_ms=budget_ms,
            context=context,
            elapsed_ms=elapsed_ms,
            items=items,
            skipped=skipped,
        )

        message_out.additional_properties = d
        return message_out

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
