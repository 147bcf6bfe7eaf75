from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.attempt_out import AttemptOut


T = TypeVar("T", bound="DeliveryOut")


@_attrs_define
class DeliveryOut:
    """
    Attributes:
        attempts (list[AttemptOut]):
        created_at (datetime.datetime):
        id (str):
        next_attempt_at (datetime.datetime | None):
        status (str):
        subscription_id (None | str):
        type_ (str):
        webhook_id (str):
    """

    attempts: list[AttemptOut]
    created_at: datetime.datetime
    id: str
    next_attempt_at: datetime.datetime | None
    status: str
    subscription_id: None | str
    type_: str
    webhook_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)

        created_at = self.created_at.isoformat()

        id = self.id

        next_attempt_at: None | str
        if isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        status = self.status

        subscription_id: None | str
        subscription_id = self.subscription_id

        type_ = self.type_

        webhook_id = self.webhook_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "created_at": created_at,
                "id": id,
                "next_attempt_at": next_attempt_at,
                "status": status,
                "subscription_id": subscription_id,
                "type": type_,
                "webhook_id": webhook_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt_out import AttemptOut  # noqa: PLC0415

        d = dict(src_dict)
        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in _attempts:
            attempts_item = AttemptOut.from_dict(attempts_item_data)

            attempts.append(attempts_item)

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = d.pop("id")

        def _parse_next_attempt_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at"))

        status = d.pop("status")

        def _parse_subscription_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        subscription_id = _parse_subscription_id(d.pop("subscription_id"))

        type_ = d.pop("type")

        webhook_id = d.pop("webhook_id")

        delivery_out = cls(
            attempts=attempts,
            created_at=created_at,
            id=id,
            next_attempt_at=next_attempt_at,
            status=status,
            subscription_id=subscription_id,
            type_=type_,
            webhook_id=webhook_id,
        )

        delivery_out.additional_properties = d
        return delivery_out

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
