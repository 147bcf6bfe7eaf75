from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.hook_declaration_out_raw_type_0 import HookDeclarationOutRawType0


T = TypeVar("T", bound="HookDeclarationOut")


@_attrs_define
class HookDeclarationOut:
    """
    Attributes:
        event (str):
        hook_id (str):
        priority (str):
        problems (list[str]):
        raw (Any | HookDeclarationOutRawType0):
        valid (bool):
        context (None | str | Unset):
        context_tool (None | str | Unset):
        context_tool_args (Any | Unset):
        matcher (Any | Unset):
    """

    event: str
    hook_id: str
    priority: str
    problems: list[str]
    raw: Any | HookDeclarationOutRawType0
    valid: bool
    context: None | str | Unset = UNSET
    context_tool: None | str | Unset = UNSET
    context_tool_args: Any | Unset = UNSET
    matcher: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.hook_declaration_out_raw_type_0 import HookDeclarationOutRawType0  # noqa: PLC0415

        event = self.event

        hook_id = self.hook_id

        priority = self.priority

        problems = self.problems

        raw: Any | dict[str, Any]
        if isinstance(self.raw, HookDeclarationOutRawType0):
            raw = self.raw.to_dict()
        else:
            raw = self.raw

        valid = self.valid

        context: None | str | Unset
        if isinstance(self.context, Unset):
            context = UNSET
        else:
            context = self.context

        context_tool: None | str | Unset
        if isinstance(self.context_tool, Unset):
            context_tool = UNSET
        else:
            context_tool = self.context_tool

        context_tool_args = self.context_tool_args

        matcher = self.matcher

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "event": event,
                "hook_id": hook_id,
                "priority": priority,
                "problems": problems,
                "raw": raw,
                "valid": valid,
            }
        )
        if context is not UNSET:
            field_dict["context"] = context
        if context_tool is not UNSET:
            field_dict["context_tool"] = context_tool
        if context_tool_args is not UNSET:
            field_dict["context_tool_args"] = context_tool_args
        if matcher is not UNSET:
            field_dict["matcher"] = matcher

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.hook_declaration_out_raw_type_0 import HookDeclarationOutRawType0  # noqa: PLC0415

        d = dict(src_dict)
        event = d.pop("event")

        hook_id = d.pop("hook_id")

        priority = d.pop("priority")

        problems = cast(list[str], d.pop("problems"))

        def _parse_raw(data: object) -> Any | HookDeclarationOutRawType0:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                raw_type_0 = HookDeclarationOutRawType0.from_dict(data)

                return raw_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Any | HookDeclarationOutRawType0, data)

        raw = _parse_raw(d.pop("raw"))

        valid = d.pop("valid")

        def _parse_context(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        context = _parse_context(d.pop("context", UNSET))

        def _parse_context_tool(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        context_tool = _parse_context_tool(d.pop("context_tool", UNSET))

        context_tool_args = d.pop("context_tool_args", UNSET)

        matcher = d.pop("matcher", UNSET)

        hook_declaration_out = cls(
            event=event,
            hook_id=hook_id,
            priority=priority,
            problems=problems,
            raw=raw,
            valid=valid,
            context=context,
            context_tool=context_tool,
            context_tool_args=context_tool_args,
            matcher=matcher,
        )

        hook_declaration_out.additional_properties = d
        return hook_declaration_out

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
