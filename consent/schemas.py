from __future__ import annotations

from datetime import datetime

from ninja import Schema


class GrantOut(Schema):
    id: str
    server: str
    scope: str
    status: str
    granted_at: datetime | None
    expires_at: datetime | None
    revoked_at: datetime | None
    approved_hooks: list[str]
    approved_event_types: list[str]
    identity: str

    @staticmethod
    def resolve_server(grant) -> str:
        return grant.server_id

    @staticmethod
    def resolve_approved_hooks(grant) -> list[str]:
        return grant.approved_hook_ids


class GrantPage(Schema):
    items: list[GrantOut]
    next_cursor: str | None


class ConsentCheckIn(Schema):
    user: str
    server: str
    scope: str
    hook_id: str | None = None
    event_type: str | None = None


class ConsentCheckOut(Schema):
    allowed: bool
    grant_id: str | None = None
    reason: str
