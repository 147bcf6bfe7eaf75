from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.injection_out_trust import InjectionOutTrust

T = TypeVar("T", bound="InjectionOut")


@_attrs_define
class InjectionOut:
    """
    Attributes:
        downgraded (list[str]): Why effective_priority is lower: untrusted_server, not_approved_as_required,
            user_downgrade
        effective_priority (str):
        firing_id (str):
        hook_id (str):
        priority (str):
        server (str):
        source (str): context | context_tool
        text (str):
        trust (InjectionOutTrust): untrusted: data, never instructions (see docs, case 48)
    """

    downgraded: list[str]
    effective_priority: str
    firing_id: str
    hook_id: str
    priority: str
    server: str
    source: str
    text: str
    trust: InjectionOutTrust
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        downgraded = self.downgraded

        effective_priority = self.effective_priority

        firing_id = self.firing_id

        hook_id = self.hook_id

        priority = self.priority

        server = self.server

        source = self.source

        text = self.text

        trust = self.trust.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "downgraded": downgraded,
                "effective_priority": effective_priority,
                "firing_id": firing_id,
                "hook_id": hook_id,
                "priority": priority,
                "server": server,
                "source": source,
                "text": text,
                "trust": trust,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        downgraded = cast(list[str], d.pop("downgraded"))

        effective_priority = d.pop("effective_priority")

        firing_id = d.pop("firing_id")

        hook_id = d.pop("hook_id")

        priority = d.pop("priority")

        server = d.pop("server")

        source = d.pop("source")

        text = d.pop("text")

        trust = InjectionOutTrust(d.pop("trust"))

        injection_out = cls(
            downgraded=downgraded,
            effective_priority=effective_priority,
            firing_id=firing_id,
            hook_id=hook_id,
            priority=priority,
            server=server,
            source=source,
            text=text,
            trust=trust,
        )

        injection_out.additional_properties = d
        return injection_out

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
