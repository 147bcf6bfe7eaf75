from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from ninja import Field, Schema


class SubscriptionIn(Schema):
    user: str = Field(..., description="The user's external_id")
    server: str = Field(..., description="A server id of this host")
    event: str = Field(..., max_length=200, description="An event type the server offers")
    arguments: dict[str, Any] | None = Field(
        None, description="Validated against the event type's inputSchema"
    )
    delivery: Literal["auto", "webhook", "push", "poll"] = "auto"
    ttl_ms: int | None = Field(
        None,
        ge=1000,
        description="Suggested lifetime; absent = the console's default, null = ask for no expiry",
    )
    max_age_ms: int | None = Field(None, ge=0, description="Replay floor after a lapse")


class UnsubscribeOut(Schema):
    """The ``events/unsubscribe`` owed once we ended it (host-api v1.2)."""

    state: Literal["pending", "done", "failed"]
    attempts: int
    last_error: str | None
    next_attempt_at: datetime | None


class SubscriptionOut(Schema):
    id: str
    user: str
    server: str
    event: str
    arguments: dict[str, Any]
    mode: str
    status: str
    paused: bool
    cursor: str | None
    truncated: bool
    refresh_before: datetime | None
    next_refresh_at: datetime | None
    delivery_status: dict[str, Any] | None
    last_event_at: datetime | None
    last_error: str | None
    last_error_message: str | None
    unsubscribe: UnsubscribeOut | None = Field(
        None, description="Set once we ended a subscription the server held"
    )
    created_at: datetime

    @staticmethod
    def resolve_user(sub) -> str:
        return sub.user.external_id

    @staticmethod
    def resolve_server(sub) -> str:
        return sub.server_id

    @staticmethod
    def resolve_event(sub) -> str:
        return sub.event_name

    @staticmethod
    def resolve_paused(sub) -> bool:
        return sub.paused_at is not None

    @staticmethod
    def resolve_last_error(sub) -> str | None:
        return sub.last_error or None

    @staticmethod
    def resolve_last_error_message(sub) -> str | None:
        return sub.last_error_message or None

    @staticmethod
    def resolve_unsubscribe(sub) -> dict[str, Any] | None:
        if not sub.unsubscribe_state:
            return None
        return {
            "state": sub.unsubscribe_state,
            "attempts": sub.unsubscribe_attempts,
            "last_error": sub.unsubscribe_last_error or None,
            "next_attempt_at": sub.unsubscribe_next_at
            if sub.unsubscribe_state == "pending"
            else None,
        }

    @staticmethod
    def resolve_next_refresh_at(sub) -> datetime | None:
        return sub.next_refresh_at if sub.is_live else None


class SubscriptionPage(Schema):
    items: list[SubscriptionOut]
    next_cursor: str | None


class RevokedOut(Schema):
    id: str
    status: str
    unsubscribe: UnsubscribeOut | None = None

    @staticmethod
    def resolve_unsubscribe(sub) -> dict[str, Any] | None:
        return SubscriptionOut.resolve_unsubscribe(sub)


class PulledItem(Schema):
    type: str
    timestamp: str
    data: dict[str, Any]
    webhook_id: str


class PulledPage(Schema):
    items: list[PulledItem]
    next_after: str | None
