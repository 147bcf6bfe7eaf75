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
    def resolve_next_refresh_at(sub) -> datetime | None:
        return sub.next_refresh_at if sub.is_live else None


class SubscriptionPage(Schema):
    items: list[SubscriptionOut]
    next_cursor: str | None


class RevokedOut(Schema):
    id: str
    status: str


class PulledItem(Schema):
    type: str
    timestamp: str
    data: dict[str, Any]
    webhook_id: str


class PulledPage(Schema):
    items: list[PulledItem]
    next_after: str | None


class EndpointIn(Schema):
    url: str = Field(..., max_length=2000)


class EndpointCreatedOut(Schema):
    url: str
    secret: str = Field(..., description="Shown once; the previous secret keeps verifying for 24 h")


class EndpointOut(Schema):
    url: str
    status: str
    disabled_reason: str | None
    last_success_at: datetime | None
    last_failure_at: datetime | None

    @staticmethod
    def resolve_disabled_reason(endpoint) -> str | None:
        return endpoint.disabled_reason or None


class AttemptOut(Schema):
    at: datetime
    status_code: int | None
    duration_ms: int
    error_category: str | None

    @staticmethod
    def resolve_error_category(attempt) -> str | None:
        return attempt.error_category or None


class DeliveryOut(Schema):
    id: str
    type: str
    webhook_id: str
    status: str
    subscription_id: str | None
    created_at: datetime
    attempts: list[AttemptOut]
    next_attempt_at: datetime | None

    @staticmethod
    def resolve_id(delivery) -> str:
        return delivery.public_id

    @staticmethod
    def resolve_attempts(delivery) -> list:
        return list(delivery.tries.all())


class DeliveryPage(Schema):
    items: list[DeliveryOut]
    next_cursor: str | None


class RecoverIn(Schema):
    since: datetime


class AcceptedOut(Schema):
    status: Literal["accepted"] = "accepted"
    count: int | None = None
