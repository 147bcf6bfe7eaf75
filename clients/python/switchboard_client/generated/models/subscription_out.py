from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.poll_out import PollOut
    from ..models.stream_out import StreamOut
    from ..models.subscription_out_arguments import SubscriptionOutArguments
    from ..models.subscription_out_channel import SubscriptionOutChannel
    from ..models.subscription_out_delivery_status_type_0 import (
        SubscriptionOutDeliveryStatusType0,
    )
    from ..models.subscription_out_filter import SubscriptionOutFilter
    from ..models.subscription_out_handler_type_0 import SubscriptionOutHandlerType0
    from ..models.unsubscribe_out import UnsubscribeOut


T = TypeVar("T", bound="SubscriptionOut")


@_attrs_define
class SubscriptionOut:
    """
    Attributes:
        arguments (SubscriptionOutArguments):
        channel (SubscriptionOutChannel): {"type": "realtime"} or the digest schedule
        created_at (datetime.datetime):
        cursor (None | str):
        delivery_status (None | SubscriptionOutDeliveryStatusType0):
        event (None | str):
        expires_at (datetime.datetime | None):
        filter_ (SubscriptionOutFilter): {} when none
        filtered_count (int): Events the filter held back
        id (str):
        last_error (None | str):
        last_error_message (None | str):
        last_event_at (datetime.datetime | None):
        mode (str):
        next_refresh_at (datetime.datetime | None):
        paused (bool):
        refresh_before (datetime.datetime | None):
        server (str):
        status (str):
        truncated (bool):
        user (str):
        handler (None | SubscriptionOutHandlerType0 | Unset): MCPE: the handler passed on
        next_digest_at (datetime.datetime | None | Unset): Digest channels: the next one
        poll (None | PollOut | Unset): Poll mode only
        remote_id (None | str | Unset): The server's id for it, once it answered
        stream (None | StreamOut | Unset): Push mode only, once a worker took it
        unsubscribe (None | Unset | UnsubscribeOut): Set once we ended a subscription the server held
    """

    arguments: SubscriptionOutArguments
    channel: SubscriptionOutChannel
    created_at: datetime.datetime
    cursor: None | str
    delivery_status: None | SubscriptionOutDeliveryStatusType0
    event: None | str
    expires_at: datetime.datetime | None
    filter_: SubscriptionOutFilter
    filtered_count: int
    id: str
    last_error: None | str
    last_error_message: None | str
    last_event_at: datetime.datetime | None
    mode: str
    next_refresh_at: datetime.datetime | None
    paused: bool
    refresh_before: datetime.datetime | None
    server: str
    status: str
    truncated: bool
    user: str
    handler: None | SubscriptionOutHandlerType0 | Unset = UNSET
    next_digest_at: datetime.datetime | None | Unset = UNSET
    poll: None | PollOut | Unset = UNSET
    remote_id: None | str | Unset = UNSET
    stream: None | StreamOut | Unset = UNSET
    unsubscribe: None | Unset | UnsubscribeOut = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.poll_out import PollOut  # noqa: PLC0415
        from ..models.stream_out import StreamOut  # noqa: PLC0415
        from ..models.subscription_out_delivery_status_type_0 import (
            SubscriptionOutDeliveryStatusType0,  # noqa: PLC0415
        )
        from ..models.subscription_out_handler_type_0 import SubscriptionOutHandlerType0  # noqa: PLC0415
        from ..models.unsubscribe_out import UnsubscribeOut  # noqa: PLC0415

        arguments = self.arguments.to_dict()

        channel = self.channel.to_dict()

        created_at = self.created_at.isoformat()

        cursor: None | str
        cursor = self.cursor

        delivery_status: dict[str, Any] | None
        if isinstance(self.delivery_status, SubscriptionOutDeliveryStatusType0):
            delivery_status = self.delivery_status.to_dict()
        else:
            delivery_status = self.delivery_status

        event: None | str
        event = self.event

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        filter_ = self.filter_.to_dict()

        filtered_count = self.filtered_count

        id = self.id

        last_error: None | str
        last_error = self.last_error

        last_error_message: None | str
        last_error_message = self.last_error_message

        last_event_at: None | str
        if isinstance(self.last_event_at, datetime.datetime):
            last_event_at = self.last_event_at.isoformat()
        else:
            last_event_at = self.last_event_at

        mode = self.mode

        next_refresh_at: None | str
        if isinstance(self.next_refresh_at, datetime.datetime):
            next_refresh_at = self.next_refresh_at.isoformat()
        else:
            next_refresh_at = self.next_refresh_at

        paused = self.paused

        refresh_before: None | str
        if isinstance(self.refresh_before, datetime.datetime):
            refresh_before = self.refresh_before.isoformat()
        else:
            refresh_before = self.refresh_before

        server = self.server

        status = self.status

        truncated = self.truncated

        user = self.user

        handler: dict[str, Any] | None | Unset
        if isinstance(self.handler, Unset):
            handler = UNSET
        elif isinstance(self.handler, SubscriptionOutHandlerType0):
            handler = self.handler.to_dict()
        else:
            handler = self.handler

        next_digest_at: None | str | Unset
        if isinstance(self.next_digest_at, Unset):
            next_digest_at = UNSET
        elif isinstance(self.next_digest_at, datetime.datetime):
            next_digest_at = self.next_digest_at.isoformat()
        else:
            next_digest_at = self.next_digest_at

        poll: dict[str, Any] | None | Unset
        if isinstance(self.poll, Unset):
            poll = UNSET
        elif isinstance(self.poll, PollOut):
            poll = self.poll.to_dict()
        else:
            poll = self.poll

        remote_id: None | str | Unset
        if isinstance(self.remote_id, Unset):
            remote_id = UNSET
        else:
            remote_id = self.remote_id

        stream: dict[str, Any] | None | Unset
        if isinstance(self.stream, Unset):
            stream = UNSET
        elif isinstance(self.stream, StreamOut):
            stream = self.stream.to_dict()
        else:
            stream = self.stream

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
                "arguments": arguments,
                "channel": channel,
                "created_at": created_at,
                "cursor": cursor,
                "delivery_status": delivery_status,
                "event": event,
                "expires_at": expires_at,
                "filter": filter_,
                "filtered_count": filtered_count,
                "id": id,
                "last_error": last_error,
                "last_error_message": last_error_message,
                "last_event_at": last_event_at,
                "mode": mode,
                "next_refresh_at": next_refresh_at,
                "paused": paused,
                "refresh_before": refresh_before,
                "server": server,
                "status": status,
                "truncated": truncated,
                "user": user,
            }
        )
        if handler is not UNSET:
            field_dict["handler"] = handler
        if next_digest_at is not UNSET:
            field_dict["next_digest_at"] = next_digest_at
        if poll is not UNSET:
            field_dict["poll"] = poll
        if remote_id is not UNSET:
            field_dict["remote_id"] = remote_id
        if stream is not UNSET:
            field_dict["stream"] = stream
        if unsubscribe is not UNSET:
            field_dict["unsubscribe"] = unsubscribe

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.poll_out import PollOut  # noqa: PLC0415
        from ..models.stream_out import StreamOut  # noqa: PLC0415
        from ..models.subscription_out_arguments import SubscriptionOutArguments  # noqa: PLC0415
        from ..models.subscription_out_channel import SubscriptionOutChannel  # noqa: PLC0415
        from ..models.subscription_out_delivery_status_type_0 import (
            SubscriptionOutDeliveryStatusType0,  # noqa: PLC0415
        )
        from ..models.subscription_out_filter import SubscriptionOutFilter  # noqa: PLC0415
        from ..models.subscription_out_handler_type_0 import SubscriptionOutHandlerType0  # noqa: PLC0415
        from ..models.unsubscribe_out import UnsubscribeOut  # noqa: PLC0415

        d = dict(src_dict)
        arguments = SubscriptionOutArguments.from_dict(d.pop("arguments"))

        channel = SubscriptionOutChannel.from_dict(d.pop("channel"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_cursor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        cursor = _parse_cursor(d.pop("cursor"))

        def _parse_delivery_status(data: object) -> None | SubscriptionOutDeliveryStatusType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                delivery_status_type_0 = SubscriptionOutDeliveryStatusType0.from_dict(data)

                return delivery_status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SubscriptionOutDeliveryStatusType0, data)

        delivery_status = _parse_delivery_status(d.pop("delivery_status"))

        def _parse_event(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        event = _parse_event(d.pop("event"))

        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))

        filter_ = SubscriptionOutFilter.from_dict(d.pop("filter"))

        filtered_count = d.pop("filtered_count")

        id = d.pop("id")

        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("last_error"))

        def _parse_last_error_message(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error_message = _parse_last_error_message(d.pop("last_error_message"))

        def _parse_last_event_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_event_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_event_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_event_at = _parse_last_event_at(d.pop("last_event_at"))

        mode = d.pop("mode")

        def _parse_next_refresh_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_refresh_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_refresh_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_refresh_at = _parse_next_refresh_at(d.pop("next_refresh_at"))

        paused = d.pop("paused")

        def _parse_refresh_before(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                refresh_before_type_0 = datetime.datetime.fromisoformat(data)

                return refresh_before_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        refresh_before = _parse_refresh_before(d.pop("refresh_before"))

        server = d.pop("server")

        status = d.pop("status")

        truncated = d.pop("truncated")

        user = d.pop("user")

        def _parse_handler(data: object) -> None | SubscriptionOutHandlerType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                handler_type_0 = SubscriptionOutHandlerType0.from_dict(data)

                return handler_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SubscriptionOutHandlerType0 | Unset, data)

        handler = _parse_handler(d.pop("handler", UNSET))

        def _parse_next_digest_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_digest_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_digest_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        next_digest_at = _parse_next_digest_at(d.pop("next_digest_at", UNSET))

        def _parse_poll(data: object) -> None | PollOut | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                poll_type_0 = PollOut.from_dict(data)

                return poll_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PollOut | Unset, data)

        poll = _parse_poll(d.pop("poll", UNSET))

        def _parse_remote_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        remote_id = _parse_remote_id(d.pop("remote_id", UNSET))

        def _parse_stream(data: object) -> None | StreamOut | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                stream_type_0 = StreamOut.from_dict(data)

                return stream_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StreamOut | Unset, data)

        stream = _parse_stream(d.pop("stream", UNSET))

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

        subscription_out = cls(
            arguments=arguments,
            channel=channel,
            created_at=created_at,
            cursor=cursor,
            delivery_status=delivery_status,
            event=event,
            expires_at=expires_at,
            filter_=filter_,
            filtered_count=filtered_count,
            id=id,
            last_error=last_error,
            last_error_message=last_error_message,
            last_event_at=last_event_at,
            mode=mode,
            next_refresh_at=next_refresh_at,
            paused=paused,
            refresh_before=refresh_before,
            server=server,
            status=status,
            truncated=truncated,
            user=user,
            handler=handler,
            next_digest_at=next_digest_at,
            poll=poll,
            remote_id=remote_id,
            stream=stream,
            unsubscribe=unsubscribe,
        )

        subscription_out.additional_properties = d
        return subscription_out

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
