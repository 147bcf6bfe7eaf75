from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.message_item_out_trust import MessageItemOutTrust
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.message_item_out_structured_context_type_0 import (
        MessageItemOutStructuredContextType0,
    )


T = TypeVar("T", bound="MessageItemOut")


@_attrs_define
class MessageItemOut:
    """
    Attributes:
        chars (int):
        latency_ms (int):
        server (str):
        truncated (bool):
        trust (MessageItemOutTrust): untrusted: the server's text is data, never instructions (trusted only from servers
            staff marked trusted)
        context (None | str | Unset):
        structured_context (MessageItemOutStructuredContextType0 | None | Unset):
    """

    chars: int
    latency_ms: int
    server: str
    truncated: bool
    trust: MessageItemOutTrust
    context: None | str | Unset = UNSET
    structured_context: MessageItemOutStructuredContextType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.message_item_out_structured_context_type_0 import (
            MessageItemOutStructuredContextType0,  # noqa: PLC0415
        )

        chars = self.chars

        latency_ms = self.latency_ms

        server = self.server

        truncated = self.truncated

        trust = self.trust.value

        context: None | str | Unset
        if isinstance(self.context, Unset):
            context = UNSET
        else:
            context = self.context

        structured_context: dict[str, Any] | None | Unset
        if isinstance(self.structured_context, Unset):
            structured_context = UNSET
        elif isinstance(self.structured_context, MessageItemOutStructuredContextType0):
            structured_context = self.structured_context.to_dict()
        else:
            structured_context = self.structured_context

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "chars": chars,
                "latency_ms": latency_ms,
                "server": server,
                "truncated": truncated,
                "trust": trust,
            }
        )
        if context is not UNSET:
            field_dict["context"] = context
        if structured_context is not UNSET:
            field_dict["structured_context"] = structured_context

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_item_out_structured_context_type_0 import (
            MessageItemOutStructuredContextType0,  # noqa: PLC0415
        )

        d = dict(src_dict)
        chars = d.pop("chars")

        latency_ms = d.pop("latency_ms")

        server = d.pop("server")

        truncated = d.pop("truncated")

        trust = MessageItemOutTrust(d.pop("trust"))

        def _parse_context(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        context = _parse_context(d.pop("context", UNSET))

        def _parse_structured_context(
            data: object,
        ) -> MessageItemOutStructuredContextType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                structured_context_type_0 = MessageItemOutStructuredContextType0.from_dict(data)

                return structured_context_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MessageItemOutStructuredContextType0 | None | Unset, data)

        structured_context = _parse_structured_context(d.pop("structured_context", UNSET))

        message_item_out = cls(
            chars=chars,
            latency_ms=latency_ms,
            server=server,
            truncated=truncated,
            trust=trust,
            context=context,
            structured_context=structured_context,
        )

        message_item_out.additional_properties = d
        return message_item_out

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
