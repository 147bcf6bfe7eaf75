from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SsoIn")


@_attrs_define
class SsoIn:
    """
    Attributes:
        client_id (str):
        client_secret (str):
        email_domains (list[str]):
        issuer (str):
        admin_values (list[str] | Unset):
        auditor_values (list[str] | Unset):
        enabled (bool | Unset):  Default: True.
        role_claim (str | Unset):  Default: 'groups'.
    """

    client_id: str
    client_secret: str
    email_domains: list[str]
    issuer: str
    admin_values: list[str] | Unset = UNSET
    auditor_values: list[str] | Unset = UNSET
    enabled: bool | Unset = True
    role_claim: str | Unset = "groups"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        client_id = self.client_id

        client_secret = self.client_secret

        email_domains = self.email_domains

        issuer = self.issuer

        admin_values: list[str] | Unset = UNSET
        if not isinstance(self.admin_values, Unset):
            admin_values = self.admin_values

        auditor_values: list[str] | Unset = UNSET
        if not isinstance(self.auditor_values, Unset):
            auditor_values = self.auditor_values

        enabled = self.enabled

        role_claim = self.role_claim

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "client_id": client_id,
                "client_secret": client_secret,
                "email_domains": email_domains,
                "issuer": issuer,
            }
        )
        if admin_values is not UNSET:
            field_dict["admin_values"] = admin_values
        if auditor_values is not UNSET:
            field_dict["auditor_values"] = auditor_values
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if role_claim is not UNSET:
            field_dict["role_claim"] = role_claim

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        client_id = d.pop("client_id")

        client_secret = d.pop("client_secret")

        email_domains = cast(list[str], d.pop("email_domains"))

        issuer = d.pop("issuer")

        admin_values = cast(list[str], d.pop("admin_values", UNSET))

        auditor_values = cast(list[str], d.pop("auditor_values", UNSET))

        enabled = d.pop("enabled", UNSET)

        role_claim = d.pop("role_claim", UNSET)

        sso_in = cls(
            client_id=client_id,
            client_secret=client_secret,
            email_domains=email_domains,
            issuer=issuer,
            admin_values=admin_values,
            auditor_values=auditor_values,
            enabled=enabled,
            role_claim=role_claim,
        )

        sso_in.additional_properties = d
        return sso_in

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
