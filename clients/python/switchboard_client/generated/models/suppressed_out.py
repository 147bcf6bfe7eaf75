from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.suppressed_out_detail import SuppressedOutDetail


T = TypeVar("T", bound="SuppressedOut")


@_attrs_define
class SuppressedOut:
    """
    Attributes:
        hook_id (str):
        reason (str): no_consent, not_approved, muted, disabled_by_host, cooldown, session_rate_limit, event_hook_cap,
            event_char_cap, server_char_cap, empty_context, context_tool_timeout, context_tool_error,
            context_tool_not_found, context_tool_empty, context_tool_unreachable, context_tool_late (its server was still
            starting past HOOK_READINESS_WAIT), context_tool_untrusted (the host runs only static hooks for untrusted
            servers), server_blocked, consent_unavailable (consent could not be read: nothing was sent)
        server (str):
        detail (SuppressedOutDetail | Unset):
    """

    hook_id: str
    reason: str
    server: str
    detail: SuppressedOutDetail | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        hook_id = self.hook_id

        reason = self.reason

        server = self.server

        detail: dict[str, Any] | Unset = UNSET
        if not isinstance(self.detail, Unset):
            detail = self.detail.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hook_id": hook_id,
                "reason": reason,
                "server": server,
            }
        )
        if detail is not UNSET:
            field_dict["detail"] = detail

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.suppressed_out_detail import SuppressedOutDetail  # noqa: PLC0415

        d = dict(src_dict)
        hook_id = d.pop("hook_id")

        reason = d.pop("reason")

        server = d.pop("server")

        _detail = d.pop("detail", UNSET)
        detail: SuppressedOutDetail | Unset
        if isinstance(_detail, Unset):
            detail = UNSET
        else:
            detail = SuppressedOutDetail.from_dict(_detail)

        suppressed_out = cls(
            hook_id=hook_id,
            reason=reason,
            server=server,
            detail=detail,
        )

        suppressed_out.additional_properties = d
        return suppressed_out

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
