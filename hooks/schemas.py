"""Request and response bodies of the lifecycle API (docs/host-integration.md, "Lifecycle hooks and thread refresh")."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Field, Schema

from hooks.dialects import Dialect


class LifecycleIn(Schema):
    user: str = Field(..., min_length=1, max_length=200, description="The user's external_id")
    event: str = Field(
        ...,
        max_length=200,
        description="One of the supported events; with dialect, the host's own name for it",
    )
    dialect: Dialect | None = Field(
        None,
        description="Whose names event uses: the host's agent. Mapped to the normalized "
        "events (docs/host-integration.md); a name with no twin is recorded and fires nothing",
    )
    thread_id: str | None = Field(None, min_length=1, max_length=200)
    servers: list[str] | None = Field(None, max_length=200, description="Server ids to attach")
    tool_name: str | None = Field(None, max_length=500)
    tool_input: Any = Field(None, description="The tool's input (any JSON)")
    tool_output: Any = Field(
        None, description="The tool's result: an MCP CallToolResult object, or any JSON"
    )
    tool_server: str | None = Field(None, max_length=200)
    project_name: str | None = Field(None, max_length=500)


class InjectionOut(Schema):
    server: str
    hook_id: str
    priority: str
    effective_priority: str
    text: str
    trust: Literal["trusted", "untrusted"] = Field(
        ..., description="untrusted: data, never instructions (see docs, case 48)"
    )
    source: str = Field(..., description="context | context_tool")
    downgraded: list[str] = Field(
        ...,
        description="Why effective_priority is lower: untrusted_server, "
        "not_approved_as_required, user_downgrade",
    )
    firing_id: str


class SuppressedOut(Schema):
    server: str
    hook_id: str
    reason: str = Field(
        ...,
        description="no_consent, not_approved, muted, disabled_by_host, cooldown, "
        "session_rate_limit, event_hook_cap, event_char_cap, server_char_cap, empty_context, "
        "context_tool_timeout, context_tool_error, context_tool_not_found, "
        "context_tool_empty, context_tool_unreachable, context_tool_late (its server was "
        "still starting past HOOK_READINESS_WAIT), context_tool_untrusted (the host runs "
        "only static hooks for untrusted servers), server_blocked, consent_unavailable "
        "(consent could not be read: nothing was sent)",
    )
    detail: dict[str, Any] = Field(default_factory=dict)


class RefreshOut(Schema):
    thread_id: str
    status: str = Field(..., description="scheduled | coalesced | rate_limited | refused")
    reason: str | None = None
    retry_after: int | None = None


class NoticeOut(Schema):
    field: str
    reason: str
    size: int | None = None
    limit: int | None = None


class LateOut(Schema):
    server: str
    hook_id: str


class NativeOut(Schema):
    dialect: str
    event: str = Field(..., description="The name the host sent")
    normalized: str | None = Field(..., description="The normalized event it was evaluated as")
    reason: str | None = Field(
        None,
        description="Why nothing was evaluated: no_normalized_twin (a known event with no "
        "normalized twin) or unknown_event (a name the dialect's table does not list); "
        "either way the event was recorded and nothing fired",
    )


class LifecycleOut(Schema):
    event_id: str
    injections: list[InjectionOut]
    suppressed: list[SuppressedOut]
    refresh: RefreshOut | None = None
    notices: list[NoticeOut]
    late: list[LateOut] = Field(
        default_factory=list,
        description="context_tool hooks whose server was still starting past "
        "HOOK_READINESS_WAIT (also in suppressed as context_tool_late): ask again later",
    )
    native: NativeOut | None = Field(
        None, description="With dialect: the host's name for the event and how it was read"
    )


class SupportedEventsOut(Schema):
    supported_events: list[str]


class ThreadRefreshIn(Schema):
    user: str = Field(..., min_length=1, max_length=200)
    servers: list[str] | None = Field(None, max_length=200)


class ThreadRefreshOut(Schema):
    thread_id: str
    status: str = Field(..., description="scheduled | coalesced")
