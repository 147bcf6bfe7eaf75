from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.scim_out import ScimOut


T = TypeVar("T", bound="SsoOut")


@_attrs_define
class SsoOut:
    """
    Attributes:
        admin_values (list[str]):
        auditor_values (list[str]):
        client_id (str):
        email_domains (list[str]):
        enabled (bool):
        issuer (str):
        redirect_uri (str):
        role_claim (str):
        scim (ScimOut):
    """

    admin_values: list[str]
    auditor_values: list[str]
    client_id: str
    email_domains: list[str]
    enabled: bool
    issuer: str
    redirect_uri: str
    role_claim: str
    scim: ScimOut
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        admin_values = self.admin_values

        auditor_values = self.auditor_values

        client_id = self.client_id

        email_domains = self.email_domains

        enabled = self.enabled

        issuer = self.issuer

        redirect_uri = self.redirect_uri

        role_claim = self.role_claim

        scim = self.scim.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "admin_values": admin_values,
                "auditor_values": auditor_values,
                "client_id": client_id,
                "email_domains": email_domains,
                "enabled": enabled,
                "issuer": issuer,
                "redirect_uri": redirect_uri,
                "role_claim": role_claim,
                "scim": scim,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.scim_out import ScimOut  # noqa: PLC0415

        d = dict(src_dict)
        admin_values = cast(list[str], d.pop("admin_values"))

        auditor_values = cast(list[str], d.pop("auditor_values"))

        client_id = d.pop("client_id")

        email_domains = cast(list[str], d.pop("email_domains"))

        enabled = d.pop("enabled")

        issuer = d.pop("issuer")

        redirect_uri = d.pop("redirect_uri")

        role_claim = d.pop("role_claim")

        scim = ScimOut.from_dict(d.pop("scim"))

        sso_out = cls(
            admin_values=admin_values,
            auditor_values=auditor_values,
            client_id=client_id,
            email_domains=email_domains,
            enabled=enabled,
            issuer=issuer,
            redirect_uri=redirect_uri,
            role_claim=role_claim,
            scim=scim,
        )

        sso_out.additional_properties = d
        return sso_out

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
