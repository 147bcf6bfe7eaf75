from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.channel_in_type import ChannelInType
from ..types import UNSET, Unset

T = TypeVar("T", bound="ChannelIn")


@_attrs_define
class ChannelIn:
    """Realtime (default), a cron digest, or one scheduled digest.

    Attributes:
        deliver_at (datetime.datetime | None | Unset): scheduled: when (in the future)
        expire_after (bool | None | Unset): scheduled: revoke after it (true)
        expression (None | str | Unset): cron: `0 9 * * *`
        max_events (int | None | Unset): cron: events per digest (1-1000; 100)
        timezone (None | str | Unset): cron: an IANA zone; UTC
        type_ (ChannelInType | Unset):  Default: ChannelInType.REALTIME.
    """

    deliver_at: datetime.datetime | None | Unset = UNSET
    expire_after: bool | None | Unset = UNSET
    expression: None | str | Unset = UNSET
    max_events: int | None | Unset = UNSET
    timezone: None | str | Unset = UNSET
    type_: ChannelInType | Unset = ChannelInType.REALTIME
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        deliver_at: None | str | Unset
        if isinstance(self.deliver_at, Unset):
            deliver_at = UNSET
        elif isinstance(self.deliver_at, datetime.datetime):
            deliver_at = self.deliver_at.isoformat()
        else:
            deliver_at = self.deliver_at

        expire_after: bool | None | Unset
        if isinstance(self.expire_after, Unset):
            expire_after = UNSET
        else:
            expire_after = self.expire_after

        expression: None | str | Unset
        if isinstance(self.expression, Unset):
            expression = UNSET
        else:
            expression = self.expression

        max_events: int | None | Unset
        if isinstance(self.max_events, Unset):
            max_events = UNSET
        else:
            max_events = self.max_events

        timezone: None | str | Unset
        if isinstance(self.timezone, Unset):
            timezone = UNSET
        else:
            timezone = self.timezone

        type_: str | Unset = UNSET
        if not isinstance(self.type_, Unset):
            type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if deliver_at is not UNSET:
            field_dict["deliver_at"] = deliver_at
        if expire_after is not UNSET:
            field_dict["expire_after"] = expire_after
        if expression is not UNSET:
            field_dict["expression"] = expression
        if max_events is not UNSET:
            field_dict["max_events"] = max_events
        if timezone is not UNSET:
            field_dict["timezone"] = timezone
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_deliver_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                deliver_at_type_0 = datetime.datetime.fromisoformat(data)

                return deliver_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        deliver_at = _parse_deliver_at(d.pop("deliver_at", UNSET))

        def _parse_expire_after(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        expire_after = _parse_expire_after(d.pop("expire_after", UNSET))

        def _parse_expression(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        expression = _parse_expression(d.pop("expression", UNSET))

        def _parse_max_events(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_events = _parse_max_events(d.pop("max_events", UNSET))

        def _parse_timezone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        timezone = _parse_timezone(d.pop("timezone", UNSET))

        _type_ = d.pop("type", UNSET)
        type_: ChannelInType | Unset
        if isinstance(_type_, Unset):
            type_ = UNSET
        else:
            type_ = ChannelInType(_type_)

        channel_in = cls(
            deliver_at=deliver_at,
            expire_after=expire_after,
            expression=expression,
            max_events=max_events,
            timezone=timezone,
            type_=type_,
        )

        channel_in.additional_properties = d
        return channel_in

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
