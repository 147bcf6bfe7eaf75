from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.access_request_out_status import AccessRequestOutStatus

T = TypeVar("T", bound="AccessRequestOut")


@_attrs_define
class AccessRequestOut:
    """
    Attributes:
        consent_request_id (None | str): the consent request the user was sent once approved
        created_at (datetime.datetime):
        decided_at (datetime.datetime | None):
        decided_by (None | str): who answered (staff's email, or the API key)
        id (str):
        note (None | str): staff's note when denied
        reason (str):
        server (str):
        status (AccessRequestOutStatus):
        user (str): the user's external_id
    """

    consent_request_id: None | str
    created_at: datetime.datetime
    decided_at: datetime.datetime | None
    decided_by: None | str
    id: str
    note: None | str
    reason: str
    server: str
    status: AccessRequestOutStatus
    user: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        consent_request_id: None | str
        consent_request_id = self.consent_request_id

        created_at = self.created_at.isoformat()

        decided_at: None | str
        if isinstance(self.decided_at, datetime.datetime):
            decided_at = self.decided_at.isoformat()
        else:
            decided_at = self.decided_at

        decided_by: None | str
        decided_by = self.decided_by

        id = self.id

        note: None | str
        note = self.note

        reason = self.reason

        server = self.server

        status = self.status.value

        user = self.user

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "consent_request_id": consent_request_id,
                "created_at": created_at,
                "decided_at": decided_at,
                "decided_by": decided_by,
                "id": id,
                "note": note,
                "reason": reason,
                "server": server,
                "status": status,
                "user": user,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_consent_request_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        consent_request_id = _parse_consent_request_id(d.pop("consent_request_id"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

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

        def _parse_decided_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        decided_by = _parse_decided_by(d.pop("decided_by"))

        id = d.pop("id")

        def _parse_note(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        note = _parse_note(d.pop("note"))

        reason = d.pop("reason")

        server = d.pop("server")

        status = AccessRequestOutStatus(d.pop("status"))

        user = d.pop("user")

        access_request_out = cls(
            consent_request_id=consent_request_id,
            created_at=created_at,
            decided_at=decided_at,
            decided_by=decided_by,
            id=id,
            note=note,
            reason=reason,
            server=server,
            status=status,
            user=user,
        )

        access_request_out.additional_properties = d
        return access_request_out

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
