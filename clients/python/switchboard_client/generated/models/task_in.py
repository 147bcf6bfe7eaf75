from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.event_source_in import EventSourceIn


T = TypeVar("T", bound="TaskIn")


@_attrs_define
class TaskIn:
    """
    Attributes:
        event_source (EventSourceIn): A task's ``eventSource`` exactly as the server's ``CreateTaskResult`` has it.
        server (str): A server id of this host
        task_id (str): The server's taskId
        user (str): The user's external_id (whose call created the task)
        poll_interval_ms (int | None | Unset): The task's pollInterval, when the server gave one
    """

    event_source: EventSourceIn
    server: str
    task_id: str
    user: str
    poll_interval_ms: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        event_source = self.event_source.to_dict()

        server = self.server

        task_id = self.task_id

        user = self.user

        poll_interval_ms: int | None | Unset
        if isinstance(self.poll_interval_ms, Unset):
            poll_interval_ms = UNSET
        else:
            poll_interval_ms = self.poll_interval_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "event_source": event_source,
                "server": server,
                "task_id": task_id,
                "user": user,
            }
        )
        if poll_interval_ms is not UNSET:
            field_dict["poll_interval_ms"] = poll_interval_ms

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_source_in import EventSourceIn  # noqa: PLC0415

        d = dict(src_dict)
        event_source = EventSourceIn.from_dict(d.pop("event_source"))

        server = d.pop("server")

        task_id = d.pop("task_id")

        user = d.pop("user")

        def _parse_poll_interval_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        poll_interval_ms = _parse_poll_interval_ms(d.pop("poll_interval_ms", UNSET))

        task_in = cls(
            event_source=event_source,
            server=server,
            task_id=task_id,
            user=user,
            poll_interval_ms=poll_interval_ms,
        )

        task_in.additional_properties = d
        return task_in

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
