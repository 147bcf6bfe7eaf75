from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.server_in_trust import ServerInTrust
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.server_in_capabilities_type_0 import ServerInCapabilitiesType0
    from ..models.server_in_headers_type_0 import ServerInHeadersType0


T = TypeVar("T", bound="ServerIn")


@_attrs_define
class ServerIn:
    """
    Attributes:
        name (str):
        capabilities (None | ServerInCapabilitiesType0 | Unset):
        headers (None | ServerInHeadersType0 | Unset):
        trust (ServerInTrust | Unset):  Default: ServerInTrust.UNTRUSTED.
        url (None | str | Unset):
    """

    name: str
    capabilities: None | ServerInCapabilitiesType0 | Unset = UNSET
    headers: None | ServerInHeadersType0 | Unset = UNSET
    trust: ServerInTrust | Unset = ServerInTrust.UNTRUSTED
    url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.server_in_capabilities_type_0 import ServerInCapabilitiesType0  # noqa: PLC0415
        from ..models.server_in_headers_type_0 import ServerInHeadersType0  # noqa: PLC0415

        name = self.name

        capabilities: dict[str, Any] | None | Unset
        if isinstance(self.capabilities, Unset):
            capabilities = UNSET
        elif isinstance(self.capabilities, ServerInCapabilitiesType0):
            capabilities = self.capabilities.to_dict()
        else:
            capabilities = self.capabilities

        headers: dict[str, Any] | None | Unset
        if isinstance(self.headers, Unset):
            headers = UNSET
        elif isinstance(self.headers, ServerInHeadersType0):
            headers = self.headers.to_dict()
        else:
            headers = self.headers

        trust: str | Unset = UNSET
        if not isinstance(self.trust, Unset):
            trust = self.trust.value

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
            }
        )
        if capabilities is not UNSET:
            field_dict["capabilities"] = capabilities
        if headers is not UNSET:
            field_dict["headers"] = headers
        if trust is not UNSET:
            field_dict["trust"] = trust
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.server_in_capabilities_type_0 import ServerInCapabilitiesType0  # noqa: PLC0415
        from ..models.server_in_headers_type_0 import ServerInHeadersType0  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        def _parse_capabilities(data: object) -> None | ServerInCapabilitiesType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                capabilities_type_0 = ServerInCapabilitiesType0.from_dict(data)

                return capabilities_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ServerInCapabilitiesType0 | Unset, data)

        capabilities = _parse_capabilities(d.pop("capabilities", UNSET))

        def _parse_headers(data: object) -> None | ServerInHeadersType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                headers_type_0 = ServerInHeadersType0.from_dict(data)

                return headers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ServerInHeadersType0 | Unset, data)

        headers = _parse_headers(d.pop("headers", UNSET))

        _trust = d.pop("trust", UNSET)
        trust: ServerInTrust | Unset
        if isinstance(_trust, Unset):
            trust = UNSET
        else:
            trust = ServerInTrust(_trust)

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        server_in = cls(
            name=name,
            capabilities=capabilities,
            headers=headers,
            trust=trust,
            url=url,
        )

        server_in.additional_properties = d
        return server_in

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
