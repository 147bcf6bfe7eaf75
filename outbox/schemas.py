"""The host endpoint and delivery log over the API (contract: Host endpoint)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from ninja import Field, Schema

from switchboard.api.params import Timestamp


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
        if attempt.completed_at is None:
            return "in_flight"  # the POST is under way (or its sender has not reported yet)
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
    def resolve_subscription_id(delivery) -> str | None:
        return delivery.stream or None

    @staticmethod
    def resolve_attempts(delivery) -> list:
        return list(delivery.tries.all())


class DeliveryPage(Schema):
    items: list[DeliveryOut]
    next_cursor: str | None


class RecoverIn(Schema):
    since: Timestamp


class AcceptedOut(Schema):
    status: Literal["accepted"] = "accepted"
    count: int | None = None
