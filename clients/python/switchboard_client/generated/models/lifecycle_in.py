from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.lifecycle_in_dialect_type_0 import LifecycleInDialectType0
from ..types import UNSET, Unset

T = TypeVar("T", bound="LifecycleIn")


@_attrs_define
class LifecycleIn:
    """
    Attributes:
        event (str): One of the supported events; with dialect, the host's own name for it
        user (str): The user's external_id
        dialect (LifecycleInDialectType0 | None | Unset): Whose names event uses: the host's agent. Mapped to the
            normalized events (docs/host-integration.md); a name with no twin is recorded and fires nothing
        project_name (None | str | Unset):
        servers (list[str] | None | Unset): Server ids to attach
        thread_id (None | str | Unset):
        tool_input (Any | Unset): The tool's input (any JSON)
        tool_name (None | str | Unset):
        tool_output (Any | Unset): The tool's result: an MCP CallToolResult object, or any JSON
        tool_server (None | str | Unset):
    """

    event: str
    user: str
    dialect: LifecycleInDialectType0 | None | Unset = UNSET
    project_name: None | str | Unset = UNSET
    servers: list[str] | None | Unset = UNSET
    thread_id: None | str | Unset = UNSET
    tool_input: Any | Unset = UNSET
    tool_name: None | str | Unset = UNSET
    tool_output: Any | Unset = UNSET
    tool_server: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        event = self.event

        user = self.user

        dialect: None | str | Unset
        if isinstance(self.dialect, Unset):
            dialect = UNSET
        elif isinstance(self.dialect, LifecycleInDialectType0):
            dialect = self.dialect.value
        else:
            dialect = self.dialect

        project_name: None | str | Unset
        if isinstance(self.project_name, Unset):
            project_name = UNSET
        else:
            project_name = self.project_name

        servers: list[str] | None | Unset
        if isinstance(self.servers, Unset):
            servers = UNSET
        elif isinstance(self.servers, list):
            servers = self.servers

        else:
            servers = self.servers

        thread_id: None | str | Unset
        if isinstance(self.thread_id, Unset):
            thread_id = UNSET
        else:
            thread_id = self.thread_id

        tool_input = self.tool_input

        tool_name: None | str | Unset
        if isinstance(self.tool_name, Unset):
            tool_name = UNSET
        else:
            tool_name = self.tool_name

        tool_output = self.tool_output

        tool_server: None | str | Unset
        if isinstance(self.tool_server, Unset):
            tool_server = UNSET
        else:
            tool_server = self.tool_server

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "event": event,
                "user": user,
            }
        )
        if dialect is not UNSET:
            field_dict["dialect"] = dialect
        if project_name is not UNSET:
            field_dict["project_name"] = project_name
        if servers is not UNSET:
            field_dict["servers"] = servers
        if thread_id is not UNSET:
            field_dict["thread_id"] = thread_id
        if tool_input is not UNSET:
            field_dict["tool_input"] = tool_input
        if tool_name is not UNSET:
            field_dict["tool_name"] = tool_name
        if tool_output is not UNSET:
            field_dict["tool_output"] = tool_output
        if tool_server is not UNSET:
            field_dict["tool_server"] = tool_server

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        event = d.pop("event")

        user = d.pop("user")

        def _parse_dialect(data: object) -> LifecycleInDialectType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                dialect_type_0 = LifecycleInDialectType0(data)

                return dialect_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LifecycleInDialectType0 | None | Unset, data)

        dialect = _parse_dialect(d.pop("dialect", UNSET))

        def _parse_project_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        project_name = _parse_project_name(d.pop("project_name", UNSET))

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

        def _parse_thread_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        thread_id = _parse_thread_id(d.pop("thread_id", UNSET))

        tool_input = d.pop("tool_input", UNSET)

        def _parse_tool_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_name = _parse_tool_name(d.pop("tool_name", UNSET))

        tool_output = d.pop("tool_output", UNSET)

        def _parse_tool_server(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_server = _parse_tool_server(d.pop("tool_server", UNSET))

        lifecycle_in = cls(
            event=event,
            user=user,
            dialect=dialect,
            project_name=project_name,
            servers=servers,
            thread_id=thread_id,
            tool_input=tool_input,
            tool_name=tool_name,
            tool_output=tool_output,
            tool_server=tool_server,
        )

        lifecycle_in.additional_properties = d
        return lifecycle_in

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
