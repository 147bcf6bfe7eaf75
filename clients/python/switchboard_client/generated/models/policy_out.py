from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.policy_out_server_list_mode import PolicyOutServerListMode
from ..types import UNSET, Unset

T = TypeVar("T", bound="PolicyOut")


@_attrs_define
class PolicyOut:
    """The host's organisation policy (one per host).

    Attributes:
        context_tools_trusted_only (bool): servers not marked trusted fire only static context hooks (no context_tool
            calls)
        conversation_budget_ms (int):
        listed_server_ids (list[str]):
        max_chars_per_message (int):
        max_chars_per_server (int):
        required_hooks_trusted_only (bool):
        server_list_mode (PolicyOutServerListMode): off: every server may ask; allow: only the listed ones; deny: all
            but the listed ones
        updated_at (datetime.datetime | None | Unset):
    """

    context_tools_trusted_only: bool
    conversation_budget_ms: int
    listed_server_ids: list[str]
    max_chars_per_message: int
    max_chars_per_server: int
    required_hooks_trusted_only: bool
    server_list_mode: PolicyOutServerListMode
    updated_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        context_tools_trusted_only = self.context_tools_trusted_only

        conversation_budget_ms = self.conversation_budget_ms

        listed_server_ids = self.listed_server_ids

        max_chars_per_message = self.max_chars_per_message

        max_chars_per_server = self.max_chars_per_server

        required_hooks_trusted_only = self.required_hooks_trusted_only

        server_list_mode = self.server_list_mode.value

        updated_at: None | str | Unset
        if isinstance(self.updated_at, Unset):
            updated_at = UNSET
        elif isinstance(self.updated_at, datetime.datetime):
            updated_at = self.updated_at.isoformat()
        else:
            updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "context_tools_trusted_only": context_tools_trusted_only,
                "conversation_budget_ms": conversation_budget_ms,
                "listed_server_ids": listed_server_ids,
                "max_chars_per_message": max_chars_per_message,
                "max_chars_per_server": max_chars_per_server,
                "required_hooks_trusted_only": required_hooks_trusted_only,
                "server_list_mode": server_list_mode,
            }
        )
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        context_tools_trusted_only = d.pop("context_tools_trusted_only")

        conversation_budget_ms = d.pop("conversation_budget_ms")

        listed_server_ids = cast(list[str], d.pop("listed_server_ids"))

        max_chars_per_message = d.pop("max_chars_per_message")

        max_chars_per_server = d.pop("max_chars_per_server")

        required_hooks_trusted_only = d.pop("required_hooks_trusted_only")

        server_list_mode = PolicyOutServerListMode(d.pop("server_list_mode"))

        def _parse_updated_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                updated_at_type_0 = datetime.datetime.fromisoformat(data)

                return updated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        updated_at = _parse_updated_at(d.pop("updated_at", UNSET))

        policy_out = cls(
            context_tools_trusted_only=context_tools_trusted_only,
            conversation_budget_ms=conversation_budget_ms,
            listed_server_ids=listed_server_ids,
            max_chars_per_message=max_chars_per_message,
            max_chars_per_server=max_chars_per_server,
            required_hooks_trusted_only=required_hooks_trusted_only,
            server_list_mode=server_list_mode,
            updated_at=updated_at,
        )

        policy_out.additional_properties = d
        return policy_out

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
