from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.history_in import HistoryIn


T = TypeVar("T", bound="MessageIn")


@_attrs_define
class MessageIn:
    """
    Attributes:
        content (str):
        message_id (str):
        user (str):
        recent_history (list[HistoryIn] | None | Unset):
        servers (list[str] | None | Unset): the servers of this message; else those of the thread, else all
    """

    content: str
    message_id: str
    user: str
    recent_history: list[HistoryIn] | None | Unset = UNSET
    servers: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        message_id = self.message_id

        user = self.user

        recent_history: list[dict[str, Any]] | None | Unset
        if isinstance(self.recent_history, Unset):
            recent_history = UNSET
        elif isinstance(self.recent_history, list):
            recent_history = []
            for recent_history_type_0_item_data in self.recent_history:
                recent_history_type_0_item = recent_history_type_0_item_data.to_dict()
                recent_history.append(recent_history_type_0_item)

        else:
            recent_history = self.recent_history

        servers: list[str] | None | Unset
        if isinstance(self.servers, Unset):
            servers = UNSET
        elif isinstance(self.servers, list):
            servers = self.servers

        else:
            servers = self.servers

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "message_id": message_id,
                "user": user,
            }
        )
        if recent_history is not UNSET:
            field_dict["recent_history"] = recent_history
        if servers is not UNSET:
            field_dict["servers"] = servers

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.history_in import HistoryIn  # noqa: PLC0415

        d = dict(src_dict)
        content = d.pop("content")

        message_id = d.pop("message_id")

        user = d.pop("user")

        def _parse_recent_history(data: object) -> list[HistoryIn] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                recent_history_type_0 = []
                _recent_history_type_0 = data
                for recent_history_type_0_item_data in _recent_history_type_0:
                    recent_history_type_0_item = HistoryIn.from_dict(
                        recent_history_type_0_item_data
                    )

                    recent_history_type_0.append(recent_history_type_0_item)

                return recent_history_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[HistoryIn] | None | Unset, data)

        recent_history = _parse_recent_history(d.pop("recent_history", UNSET))

        def _parse_servers(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                servers_type_0 = cast(list[str], data)

                return servers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        servers = _parse_servers(d.pop("servers", UNSET))

        message_in = cls(
            content=content,
            message_id=message_id,
            user=user,
            recent_history=recent_history,
            servers=servers,
        )

        message_in.additional_properties = d
        return message_in

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
