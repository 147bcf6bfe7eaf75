from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.injection_out import InjectionOut
    from ..models.late_out import LateOut
    from ..models.native_out import NativeOut
    from ..models.notice_out import NoticeOut
    from ..models.refresh_out import RefreshOut
    from ..models.suppressed_out import SuppressedOut


T = TypeVar("T", bound="LifecycleOut")


@_attrs_define
class LifecycleOut:
    """
    Attributes:
        event_id (str):
        injections (list[InjectionOut]):
        notices (list[NoticeOut]):
        suppressed (list[SuppressedOut]):
        late (list[LateOut] | Unset): context_tool hooks whose server was still starting past HOOK_READINESS_WAIT (also
            in suppressed as context_tool_late): ask again later
        native (NativeOut | None | Unset): With dialect: the host's name for the event and how it was read
        refresh (None | RefreshOut | Unset):
    """

    event_id: str
    injections: list[InjectionOut]
    notices: list[NoticeOut]
    suppressed: list[SuppressedOut]
    late: list[LateOut] | Unset = UNSET
    native: NativeOut | None | Unset = UNSET
    refresh: None | RefreshOut | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.native_out import NativeOut  # noqa: PLC0415
        from ..models.refresh_out import RefreshOut  # noqa: PLC0415

        event_id = self.event_id

        injections = []
        for injections_item_data in self.injections:
            injections_item = injections_item_data.to_dict()
            injections.append(injections_item)

        notices = []
        for notices_item_data in self.notices:
            notices_item = notices_item_data.to_dict()
            notices.append(notices_item)

        suppressed = []
        for suppressed_item_data in self.suppressed:
            suppressed_item = suppressed_item_data.to_dict()
            suppressed.append(suppressed_item)

        late: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.late, Unset):
            late = []
            for late_item_data in self.late:
                late_item = late_item_data.to_dict()
                late.append(late_item)

        native: dict[str, Any] | None | Unset
        if isinstance(self.native, Unset):
            native = UNSET
        elif isinstance(self.native, NativeOut):
            native = self.native.to_dict()
        else:
            native = self.native

        refresh: dict[str, Any] | None | Unset
        if isinstance(self.refresh, Unset):
            refresh = UNSET
        elif isinstance(self.refresh, RefreshOut):
            refresh = self.refresh.to_dict()
        else:
            refresh = self.refresh

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "event_id": event_id,
                "injections": injections,
                "notices": notices,
                "suppressed": suppressed,
            }
        )
        if late is not UNSET:
            field_dict["late"] = late
        if native is not UNSET:
            field_dict["native"] = native
        if refresh is not UNSET:
            field_dict["refresh"] = refresh

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.injection_out import InjectionOut  # noqa: PLC0415
        from ..models.late_out import LateOut  # noqa: PLC0415
        from ..models.native_out import NativeOut  # noqa: PLC0415
        from ..models.notice_out import NoticeOut  # noqa: PLC0415
        from ..models.refresh_out import RefreshOut  # noqa: PLC0415
        from ..models.suppressed_out import SuppressedOut  # noqa: PLC0415

        d = dict(src_dict)
        event_id = d.pop("event_id")

        injections = []
        _injections = d.pop("injections")
        for injections_item_data in _injections:
            injections_item = InjectionOut.from_dict(injections_item_data)

            injections.append(injections_item)

        notices = []
        _notices = d.pop("notices")
        for notices_item_data in _notices:
            notices_item = NoticeOut.from_dict(notices_item_data)

            notices.append(notices_item)

        suppressed = []
        _suppressed = d.pop("suppressed")
        for suppressed_item_data in _suppressed:
            suppressed_item = SuppressedOut.from_dict(suppressed_item_data)

            suppressed.append(suppressed_item)

        _late = d.pop("late", UNSET)
        late: list[LateOut] | Unset = UNSET
        if _late is not UNSET:
            late = []
            for late_item_data in _late:
                late_item = LateOut.from_dict(late_item_data)

                late.append(late_item)

        def _parse_native(data: object) -> NativeOut | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                native_type_0 = NativeOut.from_dict(data)

                return native_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(NativeOut | None | Unset, data)

        native = _parse_native(d.pop("native", UNSET))

        def _parse_refresh(data: object) -> None | RefreshOut | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                refresh_type_0 = RefreshOut.from_dict(data)

                return refresh_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RefreshOut | Unset, data)

        refresh = _parse_refresh(d.pop("refresh", UNSET))

        lifecycle_out = cls(
            event_id=event_id,
            injections=injections,
            notices=notices,
            suppressed=suppressed,
            late=late,
            native=native,
            refresh=refresh,
        )

        lifecycle_out.additional_properties = d
        return lifecycle_out

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
