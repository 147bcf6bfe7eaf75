from __future__ import annotations

from datetime import datetime
from typing import Any

from ninja import Field, Schema


class ErrorBody(Schema):
    code: str
    message: str
    field: str | None = None


class ErrorOut(Schema):
    error: ErrorBody


class UserIn(Schema):
    display_name: str | None = Field(None, max_length=200)
    email: str | None = Field(None, max_length=254)
    groups: list[str] | None = Field(
        None,
        description="0–50 group names of 1–100 characters; replaces the user's groups "
        "(left out: unchanged). Organisation grants are given to groups.",
    )


class UserOut(Schema):
    id: str
    external_id: str
    display_name: str
    email: str
    groups: list[str]
    created_at: datetime

    @staticmethod
    def resolve_created_at(user) -> datetime:
        return user.date_joined

    @staticmethod
    def resolve_groups(user) -> list[str]:
        # Read with the user where the caller annotated them (a hot GET).
        names = getattr(user, "group_names", None)
        if names is not None:
            return sorted(name for name in names.split("\n") if name)
        return sorted(group.name for group in user.org_groups.all())


class LoginLinkIn(Schema):
    next: str | None = Field(None, max_length=500, description="A path on the console to land on")


class LoginLinkOut(Schema):
    url: str
    expires_at: datetime


class CredentialsIn(Schema):
    headers: dict[str, str]


class ActorOut(Schema):
    kind: str
    id: str
    label: str
    on_behalf_of: str | None = None


class AuditEntryOut(Schema):
    id: str
    at: datetime
    kind: str
    actor: ActorOut
    user: str | None = None
    server: str | None = None
    subject: dict[str, str] | None = None
    summary: str
    detail: dict[str, Any]
    content_hash: str
    leaf_index: int | None = None
    hashed: dict[str, Any]


class AuditPage(Schema):
    items: list[AuditEntryOut]
    next_cursor: str | None
