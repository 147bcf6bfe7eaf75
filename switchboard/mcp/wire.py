"""Pydantic wire models for the custom MCP methods Switchboard calls.

Requests are ``mcp_types.Request`` subclasses so they go through the SDK's
``session.send_request``: no hand-written JSON-RPC. Params
subclass ``RequestParams`` (camelCase aliases, ``_meta`` parsing).

Shapes: the MCP events extension's wire messages (SEP-3415 and its drafts;
events/*) and the conversation-events SEP (conversation/userMessage). Results keep unknown keys (``extra="allow"``)
because the drafts keep changing and the raw answer is worth storing.
"""

from __future__ import annotations

from typing import Any, Literal

import mcp_types as types
from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

# --- requests --------------------------------------------------------------------


class _Params(types.RequestParams):
    """Params that send ``null`` for fields explicitly set to None.

    The SDK dumps requests with ``exclude_none=True``, but the events spec
    gives ``null`` a meaning of its own: ``cursor: null`` = start from now,
    ``ttlMs: null`` = ask for no expiry (absent = server default). So a field
    the caller *set* to None is written as null; an unset one is omitted.
    """

    @model_serializer(mode="wrap")
    def _explicit_nulls(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        out = handler(self)
        if isinstance(out, dict):
            for name in self.model_fields_set:
                if getattr(self, name) is None and name != "meta":
                    field = type(self).model_fields[name]
                    key = (
                        (field.serialization_alias or field.alias or name)
                        if info.by_alias
                        else name
                    )
                    out.setdefault(key, None)
        return out


class EventsListParams(_Params):
    cursor: str | None = None


class EventsListRequest(types.Request[EventsListParams | None, Literal["events/list"]]):
    method: Literal["events/list"] = "events/list"
    params: EventsListParams | None = None


class EventsPollParams(_Params):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    cursor: str | None = None
    max_age_ms: int | None = None
    max_events: int | None = None
    timeout_ms: int | None = None


class EventsPollRequest(types.Request[EventsPollParams, Literal["events/poll"]]):
    method: Literal["events/poll"] = "events/poll"
    params: EventsPollParams


class EventsStreamParams(_Params):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    cursor: str | None = None
    max_age_ms: int | None = None


class EventsStreamRequest(types.Request[EventsStreamParams, Literal["events/stream"]]):
    method: Literal["events/stream"] = "events/stream"
    params: EventsStreamParams


class WebhookDelivery(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: Literal["webhook"] = "webhook"
    url: str
    secret: str | None = Field(default=None, repr=False)


class EventsSubscribeParams(_Params):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    delivery: WebhookDelivery
    cursor: str | None = None
    max_age_ms: int | None = None
    ttl_ms: int | None = None


class EventsSubscribeRequest(types.Request[EventsSubscribeParams, Literal["events/subscribe"]]):
    method: Literal["events/subscribe"] = "events/subscribe"
    params: EventsSubscribeParams


class UnsubscribeDelivery(BaseModel):
    # Always sent: ChatGPT-dialect servers refuse an unsubscribe without it
    # (-32602), and SEP-3415 servers ignore it (SEP-3415 §"Unsubscribing").
    mode: Literal["webhook"] = "webhook"
    url: str


class EventsUnsubscribeParams(_Params):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    delivery: UnsubscribeDelivery


class EventsUnsubscribeRequest(
    types.Request[EventsUnsubscribeParams, Literal["events/unsubscribe"]]
):
    method: Literal["events/unsubscribe"] = "events/unsubscribe"
    params: EventsUnsubscribeParams


class HistoryItem(BaseModel):
    role: Literal["user", "assistant"]
    content: str


class UserMessageParams(_Params):
    message_id: str
    content: str
    recent_history: list[HistoryItem] | None = None


class UserMessageRequest(types.Request[UserMessageParams, Literal["conversation/userMessage"]]):
    method: Literal["conversation/userMessage"] = "conversation/userMessage"
    params: UserMessageParams


# --- results ---------------------------------------------------------------------

_OPEN = ConfigDict(extra="allow", populate_by_name=True)


class _OpenResult(types.Result):
    """Every events result. ``resultType`` (SEP-3415, 2026-07-28): absent
    means "complete"; anything else means the call did not complete, so the
    result is refused as a protocol error and nothing of it is persisted
    (case 53)."""

    model_config = types.Result.model_config | {"extra": "allow"}
    result_type: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _complete(cls, data: Any) -> Any:
        # Before the fields: an incomplete result lacks them, and saying why
        # beats listing what is missing.
        kind = data.get("resultType") if isinstance(data, dict) else None
        if kind not in (None, "complete"):
            raise ValueError(
                f"resultType {kind!r}: the call did not complete "
                "(an events result must be complete)"
            )
        return data


class EventDescriptor(BaseModel):
    """One entry of ``events/list``. ``delivery`` falls back to ``deliveryModes`` (S2)."""

    model_config = _OPEN
    name: str
    description: str | None = None
    delivery: list[str] = Field(
        default_factory=list, validation_alias=AliasChoices("delivery", "deliveryModes")
    )
    input_schema: dict[str, Any] | None = Field(default=None, alias="inputSchema")
    payload_schema: dict[str, Any] | None = Field(default=None, alias="payloadSchema")
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class EventsListResult(_OpenResult):
    events: list[EventDescriptor]
    next_cursor: str | None = None


class EventOccurrence(BaseModel):
    """SEP-3415's EventOccurrence. ``data`` is untrusted. ``cursor`` only on push/webhook."""

    model_config = _OPEN
    event_id: str = Field(alias="eventId")
    name: str
    timestamp: str | None = None
    data: Any = None
    cursor: str | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class EventsPollResult(_OpenResult):
    events: list[EventOccurrence] = Field(default_factory=list)
    cursor: str | None = None
    truncated: bool = False
    has_more: bool = False
    next_poll_ms: int | None = None
    next_poll_seconds: float | None = None  # older drafts' servers (case 39)

    def next_poll_delay_ms(self, default: int) -> int:
        """When to poll next: 0 if ``hasMore``, else ``nextPollMs``, else the
        legacy ``nextPollSeconds`` x 1000, else ``default``."""
        if self.has_more:
            return 0
        if self.next_poll_ms is not None:
            return max(0, self.next_poll_ms)
        if self.next_poll_seconds is not None:
            return max(0, int(self.next_poll_seconds * 1000))
        return default


class DeliveryStatus(BaseModel):
    model_config = _OPEN
    active: bool | None = None
    last_delivery_at: str | None = Field(default=None, alias="lastDeliveryAt")
    last_error: str | None = Field(default=None, alias="lastError")
    failed_since: str | None = Field(default=None, alias="failedSince")
    throttled: bool | None = None
    retry_after_ms: int | None = Field(default=None, alias="retryAfterMs")


class EventsSubscribeResult(_OpenResult):
    id: str
    refresh_before: str | None = None
    cursor: str | None = None
    truncated: bool = False
    delivery_status: DeliveryStatus | None = None

    @property
    def cursor_present(self) -> bool:
        """Whether the answer carried ``cursor`` at all: an absent cursor must not
        wipe the stored one (older drafts send none), while ``null`` means "no replay"."""
        return "cursor" in self.model_fields_set


class Memory(BaseModel):
    model_config = _OPEN
    content: str
    relevance: float | None = None
    source: str | None = None


class StructuredContext(BaseModel):
    model_config = _OPEN
    memories: list[Memory] = Field(default_factory=list)


class UserMessageResult(_OpenResult):
    """The conversation-events SEP's ``ConversationContextResult``: plain and/or structured context."""

    context: str | None = None
    structured_context: StructuredContext | None = None


class AnyResult(_OpenResult):
    """A result whose every key is kept (``events/unsubscribe``: shape unspecified)."""


# --- notifications (events/stream) -----------------------------------------------


class EventsNotificationParams(types.NotificationParams):
    """Every ``notifications/events/*`` params object, all keys kept."""

    model_config = types.NotificationParams.model_config | {"extra": "allow"}
