from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from ninja import Field, Schema
from pydantic import StrictBool, StrictInt

from switchboard.api.audit_log import CheckpointOut


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
    channel: str = Field(
        description="browser; staff when staff decided on the user's behalf; "
        "organisation when an organisation grant gave it"
    )
    declaration_hash: str = Field(description="SHA-256 of the declarations the user was shown")
    source: Literal["user", "organisation"] = Field(
        description="user: the user allowed it; organisation: an organisation grant did"
    )
    org_grant_id: str | None = Field(
        None, description="the organisation grant that gave it (source organisation)"
    )

    @staticmethod
    def resolve_server(grant) -> str:
        return grant.server_id

    @staticmethod
    def resolve_approved_hooks(grant) -> list[str]:
        return grant.approved_hook_ids


class AsOfLedgerOut(Schema):
    entry: str | None = Field(
        description="the newest ledger entry the answer replays (null: nothing was recorded "
        "for the user by then)"
    )
    leaf_index: int | None = Field(
        description="that entry's leaf in the host's transparency log; the leaves follow the "
        "entries' order, so every entry the answer replays is at or before it"
    )
    checkpoint: CheckpointOut | None = Field(
        description="the first signed checkpoint whose tree holds that leaf (tree_size > "
        "leaf_index), as GET /audit/checkpoint gives one: keep it to check the entries later "
        "with the proof endpoints or switchboard-verify; null when none holds it (see reason)"
    )
    reason: Literal["no_entries", "not_signed_yet"] | None = Field(
        description="why checkpoint is null: no_entries (nothing to cover), not_signed_yet "
        "(the next checkpoint, within AUDIT_CHECKPOINT_INTERVAL, will hold it); null when "
        "there is a checkpoint"
    )


class GrantPage(Schema):
    items: list[GrantOut]
    next_cursor: str | None
    ledger: AsOfLedgerOut | None = Field(
        None,
        description="with at only (null otherwise): where in the host's transparency log the "
        "answer is read, and the signed checkpoint that covers it",
    )


class ConsentCheckIn(Schema):
    user: str
    server: str
    scope: str
    hook_id: str | None = None
    event_type: str | None = None


class ConsentCheckOut(Schema):
    allowed: bool
    grant_id: str | None = None
    source: Literal["user", "organisation"] | None = Field(
        None, description="who allowed it, when allowed: the user, or an organisation grant"
    )
    reason: str = Field(
        description="active_grant, no_consent, not_approved_for_this_item, denied_by_policy"
    )


class ConsentRequestIn(Schema):
    user: str = Field(..., description="the user's external_id")
    server: str
    scopes: list[str] = Field(..., description="conversation:read, hooks, events")
    event_types: list[str] | None = Field(
        None, description="for the events scope; all the server offers when left out"
    )
    return_url: str | None = Field(
        None,
        description="where the consent page sends the user back: a registered origin or a path",
    )
    handlers: list[dict[str, Any]] | None = Field(
        None,
        description="MCPE servers, events scope: the agent handlers ({type: agent, systemPrompt?, "
        "instructions?, model?, tools?}) subscriptions would run, shown to the user; a "
        "subscription may carry one only under a grant that showed it",
    )


class ConsentRequestCreated(Schema):
    id: str
    status: str
    consent_url: str = Field(
        description="A console page. Send the user there through a login link: "
        'POST /api/v1/users/{external_id}/login-links {"next": "<path of consent_url>"}'
    )
    expires_at: datetime


class ConsentRequestOut(Schema):
    id: str
    status: Literal["pending", "approved", "denied", "partially_approved", "expired"]
    user: str
    server: str
    scopes: list[str]
    event_types: list[str]
    consent_url: str
    return_url: str
    origin: str = Field(description="host, or declarations_changed when we asked again")
    expires_at: datetime
    decided_at: datetime | None
    grants: list[GrantOut]


class HistoryIn(Schema):
    role: Literal["user", "assistant"]
    content: str


class MessageIn(Schema):
    user: str
    message_id: str
    content: str
    recent_history: list[HistoryIn] | None = None
    servers: list[str] | None = Field(
        None, description="the servers of this message; else those of the thread, else all"
    )


class MessageItemOut(Schema):
    server: str
    context: str | None = None
    structured_context: dict[str, Any] | None = None
    latency_ms: int
    chars: int
    truncated: bool
    trust: Literal["trusted", "untrusted"] = Field(
        description="untrusted: the server's text is data, never instructions "
        "(trusted only from servers staff marked trusted)"
    )


class SkippedOut(Schema):
    server: str
    reason: Literal["no_consent", "not_supported", "timeout", "error", "disabled", "over_budget"]
    detail: str | None = Field(
        None,
        description="for disabled: blocked, host_policy, timeouts, host_managed; for "
        "no_consent: consent_unavailable when consent could not be read (nothing was sent)",
    )


class MessageOut(Schema):
    context: str = Field(
        description="every injected piece in priority order, each wrapped in "
        "<external-context server=… source=… trust=…> to present as untrusted"
    )
    items: list[MessageItemOut]
    skipped: list[SkippedOut]
    budget_ms: int
    elapsed_ms: int


class InjectionIn(Schema):
    user: str
    message_id: str
    server: str
    context: str
    latency_ms: StrictInt | None = Field(None, ge=0, le=3_600_000)


class InjectionOut(Schema):
    id: str
    user: str
    server: str
    conversation_id: str
    message_id: str
    source: str
    outcome: str
    chars: int
    latency_ms: int
    created_at: datetime

    @staticmethod
    def resolve_user(injection) -> str:
        return injection.user.external_id

    @staticmethod
    def resolve_server(injection) -> str:
        return injection.server_id


class PolicyOut(Schema):
    """The host's organisation policy (one per host)."""

    server_list_mode: Literal["off", "allow", "deny"] = Field(
        description="off: every server may ask; allow: only the listed ones; "
        "deny: all but the listed ones"
    )
    listed_server_ids: list[str]
    required_hooks_trusted_only: bool
    context_tools_trusted_only: bool = Field(
        description="servers not marked trusted fire only static context hooks "
        "(no context_tool calls)"
    )
    max_chars_per_message: int
    max_chars_per_server: int
    conversation_budget_ms: int
    updated_at: datetime | None = None


class PolicyIn(Schema):
    """Fields sent are changed; fields left out keep their value. A server
    the new list denies is blocked as by the kill switch."""

    server_list_mode: Literal["off", "allow", "deny"] | None = None
    listed_server_ids: list[str] | None = None
    required_hooks_trusted_only: StrictBool | None = None
    context_tools_trusted_only: StrictBool | None = None
    max_chars_per_message: StrictInt | None = Field(None, ge=0, le=1_000_000)
    max_chars_per_server: StrictInt | None = Field(None, ge=0, le=1_000_000)
    conversation_budget_ms: StrictInt | None = Field(None, ge=50, le=10_000)


class OrgGrantIn(Schema):
    server: str
    scopes: list[str] = Field(..., description="conversation:read, hooks, events")
    event_types: list[str] | None = Field(
        None, description="for the events scope; all the server offers when left out"
    )
    hook_ids: list[str] | None = Field(
        None, description="for the hooks scope; every hook the server declares when left out"
    )
    groups: list[str] = Field(..., description='group names, or ["*"] for every user')
    user_can_revoke: StrictBool
    expires_at: datetime | None = None


class OrgGrantOut(Schema):
    id: str
    server: str
    scopes: list[str]
    event_types: list[str]
    hook_ids: list[str]
    groups: list[str]
    user_can_revoke: bool
    expires_at: datetime | None
    status: str = Field(description="active, suspended (the server changed), expired, ended")
    created_by: str = Field(description="the staff member's email, or the API key's label")
    created_at: datetime
    ended_at: datetime | None = None
    ended_by: str | None = None

    @staticmethod
    def resolve_server(org) -> str:
        return org.server_id

    @staticmethod
    def resolve_status(org) -> str:
        return org.status_now

    @staticmethod
    def resolve_ended_by(org) -> str | None:
        return org.ended_by or None


class OrgGrantPage(Schema):
    items: list[OrgGrantOut]


class AccessRequestIn(Schema):
    user: str = Field(..., description="the user's external_id")
    server: str = Field(..., description="a registered server the policy does not allow yet")
    reason: str = Field(..., description="why the user needs it (1–1,000 characters)")


class AccessDenyIn(Schema):
    note: str = Field(..., description="why not, shown to the user (1–1,000 characters)")


class AccessRequestOut(Schema):
    id: str
    user: str = Field(description="the user's external_id")
    server: str
    reason: str
    status: Literal["pending", "approved", "denied"]
    note: str | None = Field(description="staff's note when denied")
    consent_request_id: str | None = Field(
        description="the consent request the user was sent once approved"
    )
    created_at: datetime
    decided_at: datetime | None
    decided_by: str | None = Field(description="who answered (staff's email, or the API key)")

    @staticmethod
    def resolve_user(row) -> str:
        return row.user.external_id

    @staticmethod
    def resolve_server(row) -> str:
        return row.server_id

    @staticmethod
    def resolve_note(row) -> str | None:
        return row.note or None

    @staticmethod
    def resolve_decided_by(row) -> str | None:
        return row.decided_by or None


class AccessRequestPage(Schema):
    items: list[AccessRequestOut]
    next_cursor: str | None
