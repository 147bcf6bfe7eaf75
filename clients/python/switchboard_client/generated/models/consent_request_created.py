from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ConsentRequestCreated")


@_attrs_define
class ConsentRequestCreated:
    """
    Attributes:
        consent_url (str): A console page. Send the user there through a login link: POST
            /api/v1/users/{external_id}/login-links {"next": "<path of consent_url>"}
        expires_at (datetime.datetime):
        id (str):
        status (str):
    """

    consent_url: str
    expires_at: datetime.datetime
    id: str
    status: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        consent_url = self.consent_url

        expires_at = self.expires_at.isoformat()

        id = self.id

        status = self.status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "consent_url": consent_url,
                "expires_at": expires_at,
                "id": id,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        consent_url = d.pop("consent_url")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        id = d.pop("id")

        status = d.pop("status")

        consent_request_created = cls(
            consent_url=consent_url,
            expires_at=expires_at,
            id=id,
            status=status,
        )

        consent_request_created.additional_properties = d
        return consent_request_created

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
