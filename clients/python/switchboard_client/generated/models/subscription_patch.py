from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.channel_in import ChannelIn
    from ..models.filter_in import FilterIn


T = TypeVar("T", bound="SubscriptionPatch")


@_attrs_define
class SubscriptionPatch:
    """Only the fields given change; null clears.

    Attributes:
        channel (ChannelIn | None | Unset):
        expires_at (datetime.datetime | None | Unset):
        filter_ (FilterIn | None | Unset):
    """

    channel: ChannelIn | None | Unset = UNSET
    expires_at: datetime.datetime | None | Unset = UNSET
    filter_: FilterIn | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.channel_in import ChannelIn  # noqa: PLC0415
        from ..models.filter_in import FilterIn  # noqa: PLC0415

        channel: dict[str, Any] | None | Unset
        if isinstance(self.channel, Unset):
            channel = UNSET
        elif isinstance(self.channel, ChannelIn):
            channel = self.channel.to_dict()
        else:
            channel = self.channel

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        filter_: dict[str, Any] | None | Unset
        if isinstance(self.filter_, Unset):
            filter_ = UNSET
        elif isinstance(self.filter_, FilterIn):
            filter_ = self.filter_.to_dict()
        else:
            filter_ = self.filter_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if channel is not UNSET:
            field_dict["channel"] = channel
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if filter_ is not UNSET:
            field_dict["filter"] = filter_

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.channel_in import ChannelIn  # noqa: PLC0415
        from ..models.filter_in import FilterIn  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_channel(data: object) -> ChannelIn | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                channel_type_0 = ChannelIn.from_dict(data)

                return channel_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChannelIn | None | Unset, data)

        channel = _parse_channel(d.pop("channel", UNSET))

        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))

        def _parse_filter_(data: object) -> FilterIn | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                filter_type_0 = FilterIn.from_dict(data)

                return filter_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FilterIn | None | Unset, data)

        filter_ = _parse_filter_(d.pop("filter", UNSET))

        subscription_patch = cls(
            channel=channel,
            expires_at=expires_at,
            filter_=filter_,
        )

        subscription_patch.additional_properties = d
        return subscription_patch

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
