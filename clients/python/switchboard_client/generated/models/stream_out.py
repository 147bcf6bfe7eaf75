from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.stream_out_state import StreamOutState
from ..types import UNSET, Unset

T = TypeVar("T", bound="StreamOut")


@_attrs_define
class StreamOut:
    """Push mode: the ``events/stream`` the session worker holds for it.

    Attributes:
        connected_since (datetime.datetime | None):
        last_error (None | str):
        reconnects (int):
        state (StreamOutState):
        held_by (None | str | Unset): The session worker holding it
        last_frame_at (datetime.datetime | None | Unset): Last event or heartbeat seen
    """

    connected_since: datetime.datetime | None
    last_error: None | str
    reconnects: int
    state: StreamOutState
    held_by: None | str | Unset = UNSET
    last_frame_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        connected_since: None | str
        if isinstance(self.connected_since, datetime.datetime):
            connected_since = self.connected_since.isoformat()
        else:
            connected_since = self.connected_since

        last_error: None | str
        last_error = self.last_error

        reconnects = self.reconnects

        state = self.state.value

        held_by: None | str | Unset
        if isinstance(self.held_by, Unset):
            held_by = UNSET
        else:
            held_by = self.held_by

        last_frame_at: None | str | Unset
        if isinstance(self.last_frame_at, Unset):
            last_frame_at = UNSET
        elif isinstance(self.last_frame_at, datetime.datetime):
            last_frame_at = self.last_frame_at.isoformat()
        else:
            last_frame_at = self.last_frame_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "connected_since": connected_since,
                "last_error": last_error,
                "reconnects": reconnects,
                "state": state,
            }
        )
        if held_by is not UNSET:
            field_dict["held_by"] = held_by
        if last_frame_at is not UNSET:
            field_dict["last_frame_at"] = last_frame_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_connected_since(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                connected_since_type_0 = datetime.datetime.fromisoformat(data)

                return connected_since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        connected_since = _parse_connected_since(d.pop("connected_since"))

        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("last_error"))

        reconnects = d.pop("reconnects")

        state = StreamOutState(d.pop("state"))

        def _parse_held_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        held_by = _parse_held_by(d.pop("held_by", UNSET))

        def _parse_last_frame_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_frame_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_frame_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_frame_at = _parse_last_frame_at(d.pop("last_frame_at", UNSET))

        stream_out = cls(
            connected_since=connected_since,
            last_error=last_error,
            reconnects=reconnects,
            state=state,
            held_by=held_by,
            last_frame_at=last_frame_at,
        )

        stream_out.additional_properties = d
        return stream_out

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
