from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.subscription_in_delivery import SubscriptionInDelivery
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.channel_in import ChannelIn
    from ..models.filter_in import FilterIn
    from ..models.subscription_in_arguments_type_0 import SubscriptionInArgumentsType0
    from ..models.subscription_in_handler_type_0 import SubscriptionInHandlerType0


T = TypeVar("T", bound="SubscriptionIn")


@_attrs_define
class SubscriptionIn:
    """
    Attributes:
        server (str): A server id of this host
        user (str): The user's external_id
        arguments (None | SubscriptionInArgumentsType0 | Unset): Validated against the event type's inputSchema
        channel (ChannelIn | None | Unset): How the host receives the events
        delivery (SubscriptionInDelivery | Unset):  Default: SubscriptionInDelivery.AUTO.
        event (None | str | Unset): An event type the server offers; left out for an MCPE server (the filter says)
        expires_at (datetime.datetime | None | Unset): Revoked at this time
        filter_ (FilterIn | None | Unset): Applied before forwarding; what it holds back is counted, not sent
        handler (None | SubscriptionInHandlerType0 | Unset): MCPE only: {type: bash|agent|webhook, ...} as the proposal
            defines it, passed to the server when the host's policy allows that type
        max_age_ms (int | None | Unset): Replay floor after a lapse
        ttl_ms (int | None | Unset): Suggested lifetime; absent = the console's default, null = ask for no expiry
    """

    server: str
    user: str
    arguments: None | SubscriptionInArgumentsType0 | Unset = UNSET
    channel: ChannelIn | None | Unset = UNSET
    delivery: SubscriptionInDelivery | Unset = SubscriptionInDelivery.AUTO
    event: None | str | Unset = UNSET
    expires_at: datetime.datetime | None | Unset = UNSET
    filter_: FilterIn | None | Unset = UNSET
    handler: None | SubscriptionInHandlerType0 | Unset = UNSET
    max_age_ms: int | None | Unset = UNSET
    ttl_ms: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.channel_in import ChannelIn  # noqa: PLC0415
        from ..models.filter_in import FilterIn  # noqa: PLC0415
        from ..models.subscription_in_arguments_type_0 import (
            SubscriptionInArgumentsType0,  # noqa: PLC0415
        )
        from ..models.subscription_in_handler_type_0 import SubscriptionInHandlerType0  # noqa: PLC0415

        server = self.server

        user = self.user

        arguments: dict[str, Any] | None | Unset
        if isinstance(self.arguments, Unset):
            arguments = UNSET
        elif isinstance(self.arguments, SubscriptionInArgumentsType0):
            arguments = self.arguments.to_dict()
        else:
            arguments = self.arguments

        channel: dict[str, Any] | None | Unset
        if isinstance(self.channel, Unset):
            channel = UNSET
        elif isinstance(self.channel, ChannelIn):
            channel = self.channel.to_dict()
        else:
            channel = self.channel

        delivery: str | Unset = UNSET
        if not isinstance(self.delivery, Unset):
            delivery = self.delivery.value

        event: None | str | Unset
        if isinstance(self.event, Unset):
            event = UNSET
        else:
            event = self.event

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

        handler: dict[str, Any] | None | Unset
        if isinstance(self.handler, Unset):
            handler = UNSET
        elif isinstance(self.handler, SubscriptionInHandlerType0):
            handler = self.handler.to_dict()
        else:
            handler = self.handler

        max_age_ms: int | None | Unset
        if isinstance(self.max_age_ms, Unset):
            max_age_ms = UNSET
        else:
            max_age_ms = self.max_age_ms

        ttl_ms: int | None | Unset
        if isinstance(self.ttl_ms, Unset):
            ttl_ms = UNSET
        else:
            ttl_ms = self.ttl_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "server": server,
                "user": user,
            }
        )
        if arguments is not UNSET:
            field_dict["arguments"] = arguments
        if channel is not UNSET:
            field_dict["channel"] = channel
        if delivery is not UNSET:
            field_dict["delivery"] = delivery
        if event is not UNSET:
            field_dict["event"] = event
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if filter_ is not UNSET:
            field_dict["filter"] = filter_
        if handler is not UNSET:
            field_dict["handler"] = handler
        if max_age_ms is not UNSET:
            field_dict["max_age_ms"] = max_age_ms
        if ttl_ms is not UNSET:
            field_dict["ttl_ms"] = ttl_ms

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.channel_in import ChannelIn  # noqa: PLC0415
        from ..models.filter_in import FilterIn  # noqa: PLC0415
        from ..models.subscription_in_arguments_type_0 import (
            SubscriptionInArgumentsType0,  # noqa: PLC0415
        )
        from ..models.subscription_in_handler_type_0 import SubscriptionInHandlerType0  # noqa: PLC0415

        d = dict(src_dict)
        server = d.pop("server")

        user = d.pop("user")

        def _parse_arguments(data: object) -> None | SubscriptionInArgumentsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                arguments_type_0 = SubscriptionInArgumentsType0.from_dict(data)

                return arguments_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SubscriptionInArgumentsType0 | Unset, data)

        arguments = _parse_arguments(d.pop("arguments", UNSET))

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

        _delivery = d.pop("delivery", UNSET)
        delivery: SubscriptionInDelivery | Unset
        if isinstance(_delivery, Unset):
            delivery = UNSET
        else:
            delivery = SubscriptionInDelivery(_delivery)

        def _parse_event(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        event = _parse_event(d.pop("event", UNSET))

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

        def _parse_handler(data: object) -> None | SubscriptionInHandlerType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                handler_type_0 = SubscriptionInHandlerType0.from_dict(data)

                return handler_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SubscriptionInHandlerType0 | Unset, data)

        handler = _parse_handler(d.pop("handler", UNSET))

        def _parse_max_age_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_age_ms = _parse_max_age_ms(d.pop("max_age_ms", UNSET))

        def _parse_ttl_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ttl_ms = _parse_ttl_ms(d.pop("ttl_ms", UNSET))

        subscription_in = cls(
            server=server,
            user=user,
            arguments=arguments,
            channel=channel,
            delivery=delivery,
            event=event,
            expires_at=expires_at,
            filter_=filter_,
            handler=handler,
            max_age_ms=max_age_ms,
            ttl_ms=ttl_ms,
        )

        subscription_in.additional_properties = d
        return subscription_in

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
