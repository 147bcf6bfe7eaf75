from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.actor_out import ActorOut
    from ..models.audit_entry_out_detail import AuditEntryOutDetail
    from ..models.audit_entry_out_hashed import AuditEntryOutHashed
    from ..models.audit_entry_out_subject_type_0 import AuditEntryOutSubjectType0


T = TypeVar("T", bound="AuditEntryOut")


@_attrs_define
class AuditEntryOut:
    """
    Attributes:
        actor (ActorOut):
        at (datetime.datetime):
        content_hash (str):
        detail (AuditEntryOutDetail):
        hashed (AuditEntryOutHashed):
        id (str):
        kind (str):
        summary (str):
        leaf_index (int | None | Unset):
        server (None | str | Unset):
        subject (AuditEntryOutSubjectType0 | None | Unset):
        user (None | str | Unset):
    """

    actor: ActorOut
    at: datetime.datetime
    content_hash: str
    detail: AuditEntryOutDetail
    hashed: AuditEntryOutHashed
    id: str
    kind: str
    summary: str
    leaf_index: int | None | Unset = UNSET
    server: None | str | Unset = UNSET
    subject: AuditEntryOutSubjectType0 | None | Unset = UNSET
    user: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.audit_entry_out_subject_type_0 import AuditEntryOutSubjectType0  # noqa: PLC0415

        actor = self.actor.to_dict()

        at = self.at.isoformat()

        content_hash = self.content_hash

        detail = self.detail.to_dict()

        hashed = self.hashed.to_dict()

        id = self.id

        kind = self.kind

        summary = self.summary

        leaf_index: int | None | Unset
        if isinstance(self.leaf_index, Unset):
            leaf_index = UNSET
        else:
            leaf_index = self.leaf_index

        server: None | str | Unset
        if isinstance(self.server, Unset):
            server = UNSET
        else:
            server = self.server

        subject: dict[str, Any] | None | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        elif isinstance(self.subject, AuditEntryOutSubjectType0):
            subject = self.subject.to_dict()
        else:
            subject = self.subject

        user: None | str | Unset
        if isinstance(self.user, Unset):
            user = UNSET
        else:
            user = self.user

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "actor": actor,
                "at": at,
                "content_hash": content_hash,
                "detail": detail,
                "hashed": hashed,
                "id": id,
                "kind": kind,
                "summary": summary,
            }
        )
        if leaf_index is not UNSET:
            field_dict["leaf_index"] = leaf_index
        if server is not UNSET:
            field_dict["server"] = server
        if subject is not UNSET:
            field_dict["subject"] = subject
        if user is not UNSET:
            field_dict["user"] = user

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.actor_out import ActorOut  # noqa: PLC0415
        from ..models.audit_entry_out_detail import AuditEntryOutDetail  # noqa: PLC0415
        from ..models.audit_entry_out_hashed import AuditEntryOutHashed  # noqa: PLC0415
        from ..models.audit_entry_out_subject_type_0 import AuditEntryOutSubjectType0  # noqa: PLC0415

        d = dict(src_dict)
        actor = ActorOut.from_dict(d.pop("actor"))

        at = datetime.datetime.fromisoformat(d.pop("at"))

        content_hash = d.pop("content_hash")

        detail = AuditEntryOutDetail.from_dict(d.pop("detail"))

        hashed = AuditEntryOutHashed.from_dict(d.pop("hashed"))

        id = d.pop("id")

        kind = d.pop("kind")

        summary = d.pop("summary")

        def _parse_leaf_index(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        leaf_index = _parse_leaf_index(d.pop("leaf_index", UNSET))

        def _parse_server(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        server = _parse_server(d.pop("server", UNSET))

        def _parse_subject(data: object) -> AuditEntryOutSubjectType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                subject_type_0 = AuditEntryOutSubjectType0.from_dict(data)

                return subject_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AuditEntryOutSubjectType0 | None | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))

        def _parse_user(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user = _parse_user(d.pop("user", UNSET))

        audit_entry_out = cls(
            actor=actor,
            at=at,
            content_hash=content_hash,
            detail=detail,
            hashed=hashed,
            id=id,
            kind=kind,
            summary=summary,
            leaf_index=leaf_index,
            server=server,
            subject=subject,
            user=user,
        )

        audit_entry_out.additional_properties = d
        return audit_entry_out

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
