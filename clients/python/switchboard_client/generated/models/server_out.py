from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.event_type_out import EventTypeOut
    from ..models.hook_declaration_out import HookDeclarationOut
    from ..models.server_out_capabilities import ServerOutCapabilities
    from ..models.server_out_capability_sources import ServerOutCapabilitySources


T = TypeVar("T", bound="ServerOut")


@_attrs_define
class ServerOut:
    """
    Attributes:
        capabilities (ServerOutCapabilities):
        capability_sources (ServerOutCapabilitySources):
        conversation_events (bool):
        event_types (list[EventTypeOut]):
        events_dialect (str): auto, or the dialect staff chose
        events_enforce_identity (bool):
        hook_declarations (list[HookDeclarationOut]):
        id (str):
        last_error (None | str):
        name (str):
        priority (int):
        protocol_version (str):
        status (str):
        trust (str):
        url (str):
        blocked_at (Any | Unset): set while the kill switch blocks the server
        created_at (Any | Unset):
        last_synced_at (Any | Unset):
    """

    capabilities: ServerOutCapabilities
    capability_sources: ServerOutCapabilitySources
    conversation_events: bool
    event_types: list[EventTypeOut]
    events_dialect: str
    events_enforce_identity: bool
    hook_declarations: list[HookDeclarationOut]
    id: str
    last_error: None | str
    name: str
    priority: int
    protocol_version: str
    status: str
    trust: str
    url: str
    blocked_at: Any | Unset = UNSET
    created_at: Any | Unset = UNSET
    last_synced_at: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        capabilities = self.capabilities.to_dict()

        capability_sources = self.capability_sources.to_dict()

        conversation_events = self.conversation_events

        event_types = []
        for event_types_item_data in self.event_types:
            event_types_item = event_types_item_data.to_dict()
            event_types.append(event_types_item)

        events_dialect = self.events_dialect

        events_enforce_identity = self.events_enforce_identity

        hook_declarations = []
        for hook_declarations_item_data in self.hook_declarations:
            hook_declarations_item = hook_declarations_item_data.to_dict()
            hook_declarations.append(hook_declarations_item)

        id = self.id

        last_error: None | str
        last_error = self.last_error

        name = self.name

        priority = self.priority

        protocol_version = self.protocol_version

        status = self.status

        trust = self.trust

        url = self.url

        blocked_at = self.blocked_at

        created_at = self.created_at

        last_synced_at = self.last_synced_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "capabilities": capabilities,
                "capability_sources": capability_sources,
                "conversation_events": conversation_events,
                "event_types": event_types,
                "events_dialect": events_dialect,
                "events_enforce_identity": events_enforce_identity,
                "hook_declarations": hook_declarations,
                "id": id,
                "last_error": last_error,
                "name": name,
                "priority": priority,
                "protocol_version": protocol_version,
                "status": status,
                "trust": trust,
                "url": url,
            }
        )
        if blocked_at is not UNSET:
            field_dict["blocked_at"] = blocked_at
        if created_at is not UNSET:
            field_dict["created_at"] = created_at
        if last_synced_at is not UNSET:
            field_dict["last_synced_at"] = last_synced_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_type_out import EventTypeOut  # noqa: PLC0415
        from ..models.hook_declaration_out import HookDeclarationOut  # noqa: PLC0415
        from ..models.server_out_capabilities import ServerOutCapabilities  # noqa: PLC0415
        from ..models.server_out_capability_sources import ServerOutCapabilitySources  # noqa: PLC0415

        d = dict(src_dict)
        capabilities = ServerOutCapabilities.from_dict(d.pop("capabilities"))

        capability_sources = ServerOutCapabilitySources.from_dict(d.pop("capability_sources"))

        conversation_events = d.pop("conversation_events")

        event_types = []
        _event_types = d.pop("event_types")
        for event_types_item_data in _event_types:
            event_types_item = EventTypeOut.from_dict(event_types_item_data)

            event_types.append(event_types_item)

        events_dialect = d.pop("events_dialect")

        events_enforce_identity = d.pop("events_enforce_identity")

        hook_declarations = []
        _hook_declarations = d.pop("hook_declarations")
        for hook_declarations_item_data in _hook_declarations:
            hook_declarations_item = HookDeclarationOut.from_dict(hook_declarations_item_data)

            hook_declarations.append(hook_declarations_item)

        id = d.pop("id")

        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("last_error"))

        name = d.pop("name")

        priority = d.pop("priority")

        protocol_version = d.pop("protocol_version")

        status = d.pop("status")

        trust = d.pop("trust")

        url = d.pop("url")

        blocked_at = d.pop("blocked_at", UNSET)

        created_at = d.pop("created_at", UNSET)

        last_synced_at = d.pop("last_synced_at", UNSET)

        server_out = cls(
            capabilities=capabilities,
            capability_sources=capability_sources,
            conversation_events=conversation_events,
            event_types=event_types,
            events_dialect=events_dialect,
            events_enforce_identity=events_enforce_identity,
            hook_declarations=hook_declarations,
            id=id,
            last_error=last_error,
            name=name,
            priority=priority,
            protocol_version=protocol_version,
            status=status,
            trust=trust,
            url=url,
            blocked_at=blocked_at,
            created_at=created_at,
            last_synced_at=last_synced_at,
        )

        server_out.additional_properties = d
        return server_out

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
