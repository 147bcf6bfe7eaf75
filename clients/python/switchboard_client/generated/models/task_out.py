from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.task_out_status import TaskOutStatus

if TYPE_CHECKING:
    from ..models.subscription_out import SubscriptionOut
    from ..models.task_out_event_source import TaskOutEventSource
    from ..models.task_out_subscription_error_type_0 import TaskOutSubscriptionErrorType0


T = TypeVar("T", bound="TaskOut")


@_attrs_define
class TaskOut:
    """
    Attributes:
        created_at (datetime.datetime):
        ended_at (datetime.datetime | None): When the task was seen terminal (or gone)
        event_source (TaskOutEventSource):
        id (str):
        last_checked_at (datetime.datetime | None):
        last_error (None | str): The last failed tasks/get, or why it ended
        next_check_at (datetime.datetime | None): The next tasks/get; null once ended
        server (str):
        status (TaskOutStatus): As tasks/get last said (working until the first answer)
        status_message (None | str):
        subscription (None | SubscriptionOut): The subscription to the event source; null when it could not be made
        subscription_error (None | TaskOutSubscriptionErrorType0): {code, message, field?}: why no subscription came of
            the event source
        task_id (str):
        user (str):
    """

    created_at: datetime.datetime
    ended_at: datetime.datetime | None
    event_source: TaskOutEventSource
    id: str
    last_checked_at: datetime.datetime | None
    last_error: None | str
    next_check_at: datetime.datetime | None
    server: str
    status: TaskOutStatus
    status_message: None | str
    subscription: None | SubscriptionOut
    subscription_error: None | TaskOutSubscriptionErrorType0
    task_id: str
    user: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.subscription_out import SubscriptionOut  # noqa: PLC0415
        from ..models.task_out_subscription_error_type_0 import (
            TaskOutSubscriptionErrorType0,  # noqa: PLC0415
        )

        created_at = self.created_at.isoformat()

        ended_at: None | str
        if isinstance(self.ended_at, datetime.datetime):
            ended_at = self.ended_at.isoformat()
        else:
            ended_at = self.ended_at

        event_source = self.event_source.to_dict()

        id = self.id

        last_checked_at: None | str
        if isinstance(self.last_checked_at, datetime.datetime):
            last_checked_at = self.last_checked_at.isoformat()
        else:
            last_checked_at = self.last_checked_at

        last_error: None | str
        last_error = self.last_error

        next_check_at: None | str
        if isinstance(self.next_check_at, datetime.datetime):
            next_check_at = self.next_check_at.isoformat()
        else:
            next_check_at = self.next_check_at

        server = self.server

        status = self.status.value

        status_message: None | str
        status_message = self.status_message

        subscription: dict[str, Any] | None
        if isinstance(self.subscription, SubscriptionOut):
            subscription = self.subscription.to_dict()
        else:
            subscription = self.subscription

        subscription_error: dict[str, Any] | None
        if isinstance(self.subscription_error, TaskOutSubscriptionErrorType0):
            subscription_error = self.subscription_error.to_dict()
        else:
            subscription_error = self.subscription_error

        task_id = self.task_id

        user = self.user

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "ended_at": ended_at,
                "event_source": event_source,
                "id": id,
                "last_checked_at": last_checked_at,
                "last_error": last_error,
                "next_check_at": next_check_at,
                "server": server,
                "status": status,
                "status_message": status_message,
                "subscription": subscription,
                "subscription_error": subscription_error,
                "task_id": task_id,
                "user": user,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.subscription_out import SubscriptionOut  # noqa: PLC0415
        from ..models.task_out_event_source import TaskOutEventSource  # noqa: PLC0415
        from ..models.task_out_subscription_error_type_0 import (
            TaskOutSubscriptionErrorType0,  # noqa: PLC0415
        )

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_ended_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ended_at_type_0 = datetime.datetime.fromisoformat(data)

                return ended_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        ended_at = _parse_ended_at(d.pop("ended_at"))

        event_source = TaskOutEventSource.from_dict(d.pop("event_source"))

        id = d.pop("id")

        def _parse_last_checked_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_checked_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_checked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_checked_at = _parse_last_checked_at(d.pop("last_checked_at"))

        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("last_error"))

        def _parse_next_check_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_check_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_check_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_check_at = _parse_next_check_at(d.pop("next_check_at"))

        server = d.pop("server")

        status = TaskOutStatus(d.pop("status"))

        def _parse_status_message(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        status_message = _parse_status_message(d.pop("status_message"))

        def _parse_subscription(data: object) -> None | SubscriptionOut:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                subscription_type_0 = SubscriptionOut.from_dict(data)

                return subscription_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SubscriptionOut, data)

        subscription = _parse_subscription(d.pop("subscription"))

        def _parse_subscription_error(data: object) -> None | TaskOutSubscriptionErrorType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                subscription_error_type_0 = TaskOutSubscriptionErrorType0.from_dict(data)

                return subscription_error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TaskOutSubscriptionErrorType0, data)

        subscription_error = _parse_subscription_error(d.pop("subscription_error"))

        task_id = d.pop("task_id")

        user = d.pop("user")

        task_out = cls(
            created_at=created_at,
            ended_at=ended_at,
            event_source=event_source,
            id=id,
            last_checked_at=last_checked_at,
            last_error=last_error,
            next_check_at=next_check_at,
            server=server,
            status=status,
            status_message=status_message,
            subscription=subscription,
            subscription_error=subscription_error,
            task_id=task_id,
            user=user,
        )

        task_out.additional_properties = d
        return task_out

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
