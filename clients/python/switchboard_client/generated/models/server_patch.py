from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.server_patch_events_dialect_type_0 import ServerPatchEventsDialectType0
from ..models.server_patch_trust_type_0 import ServerPatchTrustType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.server_patch_headers_type_0 import ServerPatchHeadersType0


T = TypeVar("T", bound="ServerPatch")


@_attrs_define
class ServerPatch:
    """
    Attributes:
        events_dialect (None | ServerPatchEventsDialectType0 | Unset): Which events dialect to speak; auto = detected
        events_enforce_identity (bool | None | Unset): Require the server's ed25519 (v1a) signature, by a key it
            publishes at /.well-known/mcp-webhook-jwks.json, on every delivery
        headers (None | ServerPatchHeadersType0 | Unset):
        name (None | str | Unset):
        priority (int | None | Unset):
        trust (None | ServerPatchTrustType0 | Unset):
        url (None | str | Unset): where the server is reached; a new url (or other header names) suspends its users'
            consent until they approve it again
    """

    events_dialect: None | ServerPatchEventsDialectType0 | Unset = UNSET
    events_enforce_identity: bool | None | Unset = UNSET
    headers: None | ServerPatchHeadersType0 | Unset = UNSET
    name: None | str | Unset = UNSET
    priority: int | None | Unset = UNSET
    trust: None | ServerPatchTrustType0 | Unset = UNSET
    url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.server_patch_headers_type_0 import ServerPatchHeadersType0  # noqa: PLC0415

        events_dialect: None | str | Unset
        if isinstance(self.events_dialect, Unset):
            events_dialect = UNSET
        elif isinstance(self.events_dialect, ServerPatchEventsDialectType0):
            events_dialect = self.events_dialect.value
        else:
            events_dialect = self.events_dialect

        events_enforce_identity: bool | None | Unset
        if isinstance(self.events_enforce_identity, Unset):
            events_enforce_identity = UNSET
        else:
            events_enforce_identity = self.events_enforce_identity

        headers: dict[str, Any] | None | Unset
        if isinstance(self.headers, Unset):
            headers = UNSET
        elif isinstance(self.headers, ServerPatchHeadersType0):
            headers = self.headers.to_dict()
        else:
            headers = self.headers

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        priority: int | None | Unset
        if isinstance(self.priority, Unset):
            priority = UNSET
        else:
            priority = self.priority

        trust: None | str | Unset
        if isinstance(self.trust, Unset):
            trust = UNSET
        elif isinstance(self.trust, ServerPatchTrustType0):
            trust = self.trust.value
        else:
            trust = self.trust

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if events_dialect is not UNSET:
            field_dict["events_dialect"] = events_dialect
        if events_enforce_identity is not UNSET:
            field_dict["events_enforce_identity"] = events_enforce_identity
        if headers is not UNSET:
            field_dict["headers"] = headers
        if name is not UNSET:
            field_dict["name"] = name
        if priority is not UNSET:
            field_dict["priority"] = priority
        if trust is not UNSET:
            field_dict["trust"] = trust
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.server_patch_headers_type_0 import ServerPatchHeadersType0  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_events_dialect(data: object) -> None | ServerPatchEventsDialectType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                events_dialect_type_0 = ServerPatchEventsDialectType0(data)

                return events_dialect_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ServerPatchEventsDialectType0 | Unset, data)

        events_dialect = _parse_events_dialect(d.pop("events_dialect", UNSET))

        def _parse_events_enforce_identity(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        events_enforce_identity = _parse_events_enforce_identity(
            d.pop("events_enforce_identity", UNSET)
        )

        def _parse_headers(data: object) -> None | ServerPatchHeadersType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                headers_type_0 = ServerPatchHeadersType0.from_dict(data)

                return headers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ServerPatchHeadersType0 | Unset, data)

        headers = _parse_headers(d.pop("headers", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_priority(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        priority = _parse_priority(d.pop("priority", UNSET))

        def _parse_trust(data: object) -> None | ServerPatchTrustType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                trust_type_0 = ServerPatchTrustType0(data)

                return trust_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ServerPatchTrustType0 | Unset, data)

        trust = _parse_trust(d.pop("trust", UNSET))

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        server_patch = cls(
            events_dialect=events_dialect,
            events_enforce_identity=events_enforce_identity,
            headers=headers,
            name=name,
            priority=priority,
            trust=trust,
            url=url,
        )

        server_patch.additional_properties = d
        return server_patch

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
