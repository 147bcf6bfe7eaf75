from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from ninja import Field, Schema
from pydantic import StrictBool, StrictInt

from switchboard.api.params import Timestamp
from switchboard.selectors.held_streams import held_stream_of


class FilterIn(Schema):
    """Every given field must match (AND); tags match if any does."""

    event_types: list[str] | None = Field(
        None, description="Exact names or prefix patterns: `github.*`, `*`"
    )
    tags: list[str] | None = None
    priority: list[Literal["low", "normal", "high", "critical"]] | None = Field(
        None, description="An event without a priority counts as normal"
    )


class ChannelIn(Schema):
    """Realtime (default), a cron digest, or one scheduled digest."""

    type: Literal["realtime", "cron", "scheduled"] = "realtime"
    expression: str | None = Field(None, max_length=200, description="cron: `0 9 * * *`")
    timezone: str | None = Field(None, max_length=64, description="cron: an IANA zone; UTC")
    max_events: StrictInt | None = Field(None, description="cron: events per digest (1-1000; 100)")
    deliver_at: Timestamp | None = Field(None, description="scheduled: when (in the future)")
    expire_after: StrictBool | None = Field(None, description="scheduled: revoke after it (true)")


class SubscriptionIn(Schema):
    user: str = Field(..., description="The user's external_id")
    server: str = Field(..., description="A server id of this host")
    event: str | None = Field(
        None,
        max_length=200,
        description="An event type the server offers; left out for an MCPE server (the filter says)",
    )
    arguments: dict[str, Any] | None = Field(
        None, description="Validated against the event type's inputSchema"
    )
    delivery: Literal["auto", "webhook", "push", "poll"] = "auto"
    ttl_ms: StrictInt | None = Field(
        None,
        ge=1000,
        description="Suggested lifetime; absent = the console's default, null = ask for no expiry",
    )
    max_age_ms: StrictInt | None = Field(None, ge=0, description="Replay floor after a lapse")
    filter: FilterIn | None = Field(
        None, description="Applied before forwarding; what it holds back is counted, not sent"
    )
    expires_at: Timestamp | None = Field(None, description="Revoked at this time")
    channel: ChannelIn | None = Field(None, description="How the host receives the events")
    handler: dict[str, Any] | None = Field(
        None,
        description="MCPE only: {type: bash|agent|webhook, ...} as the proposal defines it, "
        "passed to the server when the host's policy allows that type",
    )


class SubscriptionPatch(Schema):
    """Only the fields given change; null clears."""

    filter: FilterIn | None = None
    expires_at: Timestamp | None = None
    channel: ChannelIn | None = None


class UnsubscribeOut(Schema):
    """The ``events/unsubscribe`` owed once we ended it."""

    state: Literal["pending", "done", "failed"]
    attempts: int
    last_error: str | None
    next_attempt_at: datetime | None


class PollOut(Schema):
    """Poll mode: when the console polls next and when it last did."""

    next_poll_at: datetime | None
    last_polled_at: datetime | None


class StreamOut(Schema):
    """Push mode: the ``events/stream`` the session worker holds for it."""

    state: Literal["connecting", "connected", "waiting", "ended"]
    connected_since: datetime | None
    last_frame_at: datetime | None = Field(None, description="Last event or heartbeat seen")
    reconnects: int
    last_error: str | None
    held_by: str | None = Field(None, description="The session worker holding it")


class SubscriptionOut(Schema):
    id: str
    user: str
    server: str
    event: str | None
    arguments: dict[str, Any]
    mode: str
    remote_id: str | None = Field(None, description="The server's id for it, once it answered")
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
    filter: dict[str, list[str]] = Field(description="{} when none")
    filtered_count: int = Field(description="Events the filter held back")
    expires_at: datetime | None
    channel: dict[str, Any] = Field(description='{"type": "realtime"} or the digest schedule')
    handler: dict[str, Any] | None = Field(None, description="MCPE: the handler passed on")
    next_digest_at: datetime | None = Field(None, description="Digest channels: the next one")
    poll: PollOut | None = Field(None, description="Poll mode only")
    stream: StreamOut | None = Field(None, description="Push mode only, once a worker took it")
    created_at: datetime

    @staticmethod
    def resolve_user(sub) -> str:
        return sub.user.external_id

    @staticmethod
    def resolve_server(sub) -> str:
        return sub.server_id

    @staticmethod
    def resolve_event(sub) -> str | None:
        return sub.event_name or None  # an MCPE subscription has none

    @staticmethod
    def resolve_handler(sub) -> dict[str, Any] | None:
        return sub.handler or None

    @staticmethod
    def resolve_channel(sub) -> dict[str, Any]:
        return sub.channel or {"type": "realtime"}

    @staticmethod
    def resolve_remote_id(sub) -> str | None:
        return sub.remote_id or None

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
    def resolve_poll(sub) -> dict[str, Any] | None:
        if sub.mode != "poll":
            return None
        return {"next_poll_at": sub.next_poll_at, "last_polled_at": sub.last_polled_at}

    @staticmethod
    def resolve_stream(sub) -> dict[str, Any] | None:
        if sub.held_as is None:
            return None
        held = held_stream_of(*sub.held_as)
        if held is None:
            return None
        return {
            "state": held.state,
            "connected_since": held.connected_since,
            "last_frame_at": held.last_frame_at,
            "reconnects": held.reconnects,
            "last_error": held.last_error or None,
            "held_by": held.holder or None,
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


class EventSourceIn(Schema):
    """A task's ``eventSource`` exactly as the server's ``CreateTaskResult`` has it."""

    name: str = Field(..., min_length=1, max_length=200, description="The event type")
    input: dict[str, Any] | None = Field(
        None, description="Becomes the subscription's arguments (inputSchema applies)"
    )
    initialCursor: str | None = Field(  # noqa: N815 - the server's wire name, passed through
        None, max_length=1000, description="Where the subscription starts; null = from now"
    )


class TaskIn(Schema):
    user: str = Field(..., description="The user's external_id (whose call created the task)")
    server: str = Field(..., description="A server id of this host")
    task_id: str = Field(..., min_length=1, max_length=200, description="The server's taskId")
    event_source: EventSourceIn = Field(..., description="The CreateTaskResult's eventSource")
    poll_interval_ms: StrictInt | None = Field(
        None, ge=0, description="The task's pollInterval, when the server gave one"
    )


class TaskOut(Schema):
    id: str
    user: str
    server: str
    task_id: str
    status: Literal["working", "input_required", "completed", "failed", "cancelled"] = Field(
        description="As tasks/get last said (working until the first answer)"
    )
    status_message: str | None
    event_source: dict[str, Any]
    subscription: SubscriptionOut | None = Field(
        description="The subscription to the event source; null when it could not be made"
    )
    subscription_error: dict[str, Any] | None = Field(
        description="{code, message, field?}: why no subscription came of the event source"
    )
    next_check_at: datetime | None = Field(description="The next tasks/get; null once ended")
    last_checked_at: datetime | None
    last_error: str | None = Field(description="The last failed tasks/get, or why it ended")
    ended_at: datetime | None = Field(description="When the task was seen terminal (or gone)")
    created_at: datetime

    @staticmethod
    def resolve_user(watch) -> str:
        return watch.user.external_id

    @staticmethod
    def resolve_server(watch) -> str:
        return watch.server_id

    @staticmethod
    def resolve_status_message(watch) -> str | None:
        return watch.status_message or None

    @staticmethod
    def resolve_last_error(watch) -> str | None:
        return watch.last_error or None


class TaskPage(Schema):
    items: list[TaskOut]
    next_cursor: str | None
