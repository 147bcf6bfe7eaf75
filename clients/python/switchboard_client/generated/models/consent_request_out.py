from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.consent_request_out_status import ConsentRequestOutStatus

if TYPE_CHECKING:
    from ..models.grant_out import GrantOut


T = TypeVar("T", bound="ConsentRequestOut")


@_attrs_define
class ConsentRequestOut:
    """
    Attributes:
        consent_url (str):
        decided_at (datetime.datetime | None):
        event_types (list[str]):
        expires_at (datetime.datetime):
        grants (list[GrantOut]):
        id (str):
        origin (str): host, or declarations_changed when we asked again
        return_url (str):
        scopes (list[str]):
        server (str):
        status (ConsentRequestOutStatus):
        user (str):
    """

    consent_url: str
    decided_at: datetime.datetime | None
    event_types: list[str]
    expires_at: datetime.datetime
    grants: list[GrantOut]
    id: str
    origin: str
    return_url: str
    scopes: list[str]
    server: str
    status: ConsentRequestOutStatus
    user: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        consent_url = self.consent_url

        decided_at: None | str
        if isinstance(self.decided_at, datetime.datetime):
            decided_at = self.decided_at.isoformat()
        else:
            decided_at = self.decided_at

        event_types = self.event_types

        expires_at = self.expires_at.isoformat()

        grants = []
        for grants_item_data in self.grants:
            grants_item = grants_item_data.to_dict()
            grants.append(grants_item)

        id = self.id

        origin = self.origin

        return_url = self.return_url

        scopes = self.scopes

        server = self.server

        status = self.status.value

        user = self.user

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "consent_url": consent_url,
                "decided_at": decided_at,
                "event_types": event_types,
                "expires_at": expires_at,
                "grants": grants,
                "id": id,
                "origin": origin,
                "return_url": return_url,
                "scopes": scopes,
                "server": server,
                "status": status,
                "user": user,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.grant_out import GrantOut  # noqa: PLC0415

        d = dict(src_dict)
        consent_url = d.pop("consent_url")

        def _parse_decided_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                decided_at_type_0 = datetime.datetime.fromisoformat(data)

                return decided_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        decided_at = _parse_decided_at(d.pop("decided_at"))

        event_types = cast(list[str], d.pop("event_types"))

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        grants = []
        _grants = d.pop("grants")
        for grants_item_data in _grants:
            grants_item = GrantOut.from_dict(grants_item_data)

            grants.append(grants_item)

        id = d.pop("id")

        origin = d.pop("origin")

        return_url = d.pop("return_url")

        scopes = cast(list[str], d.pop("scopes"))

        server = d.pop("server")

        status = ConsentRequestOutStatus(d.pop("status"))

        user = d.pop("user")

        consent_request_out = cls(
            consent_url=consent_url,
            decided_at=decided_at,
            event_types=event_types,
            expires_at=expires_at,
            grants=grants,
            id=id,
            origin=origin,
            return_url=return_url,
            scopes=scopes,
            server=server,
            status=status,
            user=user,
        )

        consent_request_out.additional_properties = d
        return consent_request_out

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
