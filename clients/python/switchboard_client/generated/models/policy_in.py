from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.policy_in_server_list_mode_type_0 import PolicyInServerListModeType0
from ..types import UNSET, Unset

T = TypeVar("T", bound="PolicyIn")


@_attrs_define
class PolicyIn:
    """Fields sent are changed; fields left out keep their value. A server
    the new list denies is blocked as by the kill switch.

        Attributes:
            context_tools_trusted_only (bool | None | Unset):
            conversation_budget_ms (int | None | Unset):
            listed_server_ids (list[str] | None | Unset):
            max_chars_per_message (int | None | Unset):
            max_chars_per_server (int | None | Unset):
            required_hooks_trusted_only (bool | None | Unset):
            server_list_mode (None | PolicyInServerListModeType0 | Unset):
    """

    context_tools_trusted_only: bool | None | Unset = UNSET
    conversation_budget_ms: int | None | Unset = UNSET
    listed_server_ids: list[str] | None | Unset = UNSET
    max_chars_per_message: int | None | Unset = UNSET
    max_chars_per_server: int | None | Unset = UNSET
    required_hooks_trusted_only: bool | None | Unset = UNSET
    server_list_mode: None | PolicyInServerListModeType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        context_tools_trusted_only: bool | None | Unset
        if isinstance(self.context_tools_trusted_only, Unset):
            context_tools_trusted_only = UNSET
        else:
            context_tools_trusted_only = self.context_tools_trusted_only

        conversation_budget_ms: int | None | Unset
        if isinstance(self.conversation_budget_ms, Unset):
            conversation_budget_ms = UNSET
        else:
            conversation_budget_ms = self.conversation_budget_ms

        listed_server_ids: list[str] | None | Unset
        if isinstance(self.listed_server_ids, Unset):
            listed_server_ids = UNSET
        elif isinstance(self.listed_server_ids, list):
            listed_server_ids = self.listed_server_ids

        else:
            listed_server_ids = self.listed_server_ids

        max_chars_per_message: int | None | Unset
        if isinstance(self.max_chars_per_message, Unset):
            max_chars_per_message = UNSET
        else:
            max_chars_per_message = self.max_chars_per_message

        max_chars_per_server: int | None | Unset
        if isinstance(self.max_chars_per_server, Unset):
            max_chars_per_server = UNSET
        else:
            max_chars_per_server = self.max_chars_per_server

        required_hooks_trusted_only: bool | None | Unset
        if isinstance(self.required_hooks_trusted_only, Unset):
            required_hooks_trusted_only = UNSET
        else:
            required_hooks_trusted_only = self.required_hooks_trusted_only

        server_list_mode: None | str | Unset
        if isinstance(self.server_list_mode, Unset):
            server_list_mode = UNSET
        elif isinstance(self.server_list_mode, PolicyInServerListModeType0):
            server_list_mode = self.server_list_mode.value
        else:
            server_list_mode = self.server_list_mode

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if context_tools_trusted_only is not UNSET:
            field_dict["context_tools_trusted_only"] = context_tools_trusted_only
        if conversation_budget_ms is not UNSET:
            field_dict["conversation_budget_ms"] = conversation_budget_ms
        if listed_server_ids is not UNSET:
            field_dict["listed_server_ids"] = listed_server_ids
        if max_chars_per_message is not UNSET:
            field_dict["max_chars_per_message"] = max_chars_per_message
        if max_chars_per_server is not UNSET:
            field_dict["max_chars_per_server"] = max_chars_per_server
        if required_hooks_trusted_only is not UNSET:
            field_dict["required_hooks_trusted_only"] = required_hooks_trusted_only
        if server_list_mode is not UNSET:
            field_dict["server_list_mode"] = server_list_mode

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_context_tools_trusted_only(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        context_tools_trusted_only = _parse_context_tools_trusted_only(
            d.pop("context_tools_trusted_only", UNSET)
        )

        def _parse_conversation_budget_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        conversation_budget_ms = _parse_conversation_budget_ms(
            d.pop("conversation_budget_ms", UNSET)
        )

        def _parse_listed_server_ids(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                listed_server_ids_type_0 = cast(list[str], data)

                return listed_server_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        listed_server_ids = _parse_listed_server_ids(d.pop("listed_server_ids", UNSET))

        def _parse_max_chars_per_message(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_chars_per_message = _parse_max_chars_per_message(d.pop("max_chars_per_message", UNSET))

        def _parse_max_chars_per_server(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_chars_per_server = _parse_max_chars_per_server(d.pop("max_chars_per_server", UNSET))

        def _parse_required_hooks_trusted_only(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        required_hooks_trusted_only = _parse_required_hooks_trusted_only(
            d.pop("required_hooks_trusted_only", UNSET)
        )

        def _parse_server_list_mode(data: object) -> None | PolicyInServerListModeType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                server_list_mode_type_0 = PolicyInServerListModeType0(data)

                return server_list_mode_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PolicyInServerListModeType0 | Unset, data)

        server_list_mode = _parse_server_list_mode(d.pop("server_list_mode", UNSET))

        policy_in = cls(
            context_tools_trusted_only=context_tools_trusted_only,
            conversation_budget_ms=conversation_budget_ms,
            listed_server_ids=listed_server_ids,
            max_chars_per_message=max_chars_per_message,
            max_chars_per_server=max_chars_per_server,
            required_hooks_trusted_only=required_hooks_trusted_only,
            server_list_mode=server_list_mode,
        )

        policy_in.additional_properties = d
        return policy_in

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
