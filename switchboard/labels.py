"""Plain words for the codes we store: statuses, scopes, kinds, modes.

One table, used by every page (through the ``label`` template tag and filter
in ``switchboard_tags``), so a status reads the same wherever it appears.
Pages for end users speak to them ("you"); staff pages speak of "the user".
A word is either one string for everybody or a ``Words`` with both forms.

Every choice field of our models must be named in ``FIELD_DOMAINS`` and every
one of its values must have words here: tests/core/test_labels.py checks it,
so a new status cannot reach a page as a raw code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Audience = Literal["user", "staff"]


@dataclass(frozen=True)
class Words:
    user: str  # on the end user's own pages: "you"
    staff: str  # on staff pages: "the user"
    neutral: str = ""  # when the page could be either (a live update sent to both)

    def for_audience(self, audience: Audience | None) -> str:
        if audience == "user":
            return self.user
        if audience == "staff":
            return self.staff
        return self.neutral or self.staff


Label = str | Words

GRANT_STATUS: dict[str, Label] = {
    "pending": Words("Waiting for your answer", "Waiting for the user", "Waiting for an answer"),
    "active": "Allowed",
    "denied": "Not allowed",
    "revoked": "Taken back",
    "expired": "Expired",
    "suspended": Words(
        "Paused: the server changed what it asks; please answer again",
        "Paused: the server changed what it asks; the user must answer again",
        "Paused: the server changed what it asks",
    ),
}

SCOPE: dict[str, Label] = {
    # The consent page's headings (consent.presenters.SCOPE_TITLES) say the same.
    "conversation:read": Words("Read your messages", "Read the user's messages", "Read messages"),
    "hooks": "Add instructions at moments of an agent session",
    "events": Words(
        "Send you events from outside",
        "Send the user events from outside",
        "Send events from outside",
    ),
}

REQUEST_STATUS: dict[str, Label] = {
    "pending": Words("Waiting for your answer", "Waiting for the user", "Waiting for an answer"),
    "approved": "Allowed",
    "denied": "Not allowed",
    "partially_approved": "Partly allowed",
    "expired": "Expired without an answer",
}

REQUEST_ORIGIN: dict[str, Label] = {
    "host": "Asked by the host",
    "declarations_changed": "Asked again: the server changed what it declares",
    "registration_changed": "Asked again: the server's address or credentials changed",
    "access_request": Words(
        "Asked because you requested access", "Asked after the user requested access"
    ),
}

SUSPENDED_REASON: dict[str, Label] = {
    "declarations_changed": "On hold: the server changed what it declares",
    "server_blocked": "On hold: the organisation blocked the server",
    "url_changed": "On hold: the server was pointed to another address",
    "credentials_changed": "On hold: the server is now reached with other credentials",
}

ACCESS_REQUEST_STATUS: dict[str, Label] = {
    "pending": "Waiting for staff",
    "approved": "Approved",
    "denied": "Denied",
}

IDENTITY: dict[str, Label] = {
    "user": Words("Your own account", "The user's own account", "The user's own account"),
    "host": "The host's shared account",
}

CHANNEL: dict[str, Label] = {
    "browser": Words("By you, in the browser", "By the user, in the browser", "In the browser"),
    "staff": Words("By staff on your behalf", "By staff on the user's behalf"),
    "api": "Through the host's API",
    "organisation": Words("Allowed by your organisation", "Allowed by the organisation"),
}

ORG_GRANT_STATUS: dict[str, Label] = {
    "active": "Allowed",
    "suspended": "On hold until an admin allows it again",
    "expired": "Expired",
    "ended": "Ended",
}

SERVER_LIST_MODE: dict[str, Label] = {
    "off": "Every registered server may ask",
    "allow": "Only the listed servers may ask",
    "deny": "Every server except the listed ones may ask",
}

INJECTION_SOURCE: dict[str, Label] = {
    "console": "Switchboard asked the server",
    "host": "The host asked the server and reported it",
}

INJECTION_OUTCOME: dict[str, Label] = {
    "ok": "Answered",
    "timeout": "Too slow: not used",
    "error": "Failed",
    "over_budget": "Answered too late: over the budget",
}

SERVER_STATUS: dict[str, Label] = {
    "pending": "Connecting",
    "active": "Active",
    "unreachable": "Unreachable",
    "host_managed": "Run by the host",
}

TRUST: dict[str, Label] = {
    "trusted": "Trusted",
    "untrusted": "Not trusted",
}

UNSUBSCRIBE_STATE: dict[str, Label] = {
    "pending": "Unsubscribing from the server",
    "done": "Unsubscribed from the server",
    "failed": "The server did not accept the unsubscribe",
}

DIGEST_STATE: dict[str, Label] = {
    "direct": "Forwarded on its own",
    "waiting": "Waiting for the next digest",
    "sent": "Sent in a digest",
    "dropped": "Left out of a full digest",
}

EVENTS_DIALECT: dict[str, Label] = {
    "auto": "Detected",
    "sep-3415": "SEP-3415",
    "chatgpt": "ChatGPT",
}

ACTOR_KIND: dict[str, Label] = {
    "user": Words("You", "The user", "The user"),
    "staff": "Staff",
    "host_key": "The host (API key)",
    "system": "Switchboard",
}

ROLE: dict[str, Label] = {
    "end_user": "End user",
    "admin": "Host admin",
    "auditor": "Auditor",
    "superuser": "Superuser",
    "none": "No role",
}

SIGN_IN_METHOD: dict[str, Label] = {
    "sso": "Organisation sign-in (SSO)",
    "link": "One-time link (break-glass)",
}

SUBSCRIPTION_MODE: dict[str, Label] = {
    "webhook": "Webhook",
    "push": "Live stream",
    "poll": "Polling",
    "mcpe": "MCPE session",
}

SUBSCRIPTION_STATUS: dict[str, Label] = {
    "pending": "Starting",
    "pending_consent": Words(
        "Waiting for your answer", "Waiting for the user", "Waiting for consent"
    ),
    "active": "Active",
    "paused": "Paused",
    "suspended": "Stopped by the server (delivery failed)",
    "expired": "Lapsed: renewing",
    "terminated": "Ended by the server",
    "revoked": "Stopped",
    "failed": "Refused by the server",
}

RECEIVED_KIND: dict[str, Label] = {
    "event": "Event",
    "gap": "Gap: events may be missing",
    "terminated": "Ended by the server",
    "control": "A message from the server of a kind Switchboard does not know",
}

SUBSCRIPTION_REFRESH_KIND: dict[str, Label] = {
    "subscribe": "Subscribe",
    "refresh": "Renew",
    "resubscribe": "Subscribe again",
    "rotate": "New secret",
    "unsubscribe": "Unsubscribe",
}

ENDPOINT_STATUS: dict[str, Label] = {
    "active": "Active",
    "disabled": "Switched off",
}

DELIVERY_STATUS: dict[str, Label] = {
    "pending": "Waiting to send",
    "delivered": "Delivered",
    "failed": "Failed",
    "held": "Held while paused",
    "no_endpoint": "No endpoint was set",
    "disabled": "Held: endpoint switched off",
}

FIRING_SOURCE: dict[str, Label] = {
    "context": "Added to the conversation",
    "context_tool": "Added after a tool ran",
}

CAPPED_PRIORITY: dict[str, Label] = {
    "suggestion": "Suggestion",
    "important": "Important",
}

THREAD_REFRESH_KIND: dict[str, Label] = {
    "refresh": "Check for changes",
    "baseline": "First look",
}

THREAD_REFRESH_STATUS: dict[str, Label] = {
    "scheduled": "Scheduled",
    "running": "Running",
    "completed": "Done",
    "failed": "Failed",
}

THREAD_REFRESH_TRIGGER: dict[str, Label] = {
    "tool_output": "A tool asked for it",
    "api": "The host asked for it",
    "server_joined": "A server joined the conversation",
}

LIST_CHANGES: dict[str, Label] = {
    "listen": "Told at once (a held listen stream)",
    "relist": "Read again periodically (the server did not accept a listen stream)",
}

HELD_STREAM_STATE: dict[str, Label] = {
    "connecting": "Connecting",
    "connected": "Connected",
    "waiting": "Reconnecting after a pause",
    "ended": "Closed",
}

TASK_STATUS: dict[str, Label] = {
    "working": "Working",
    "input_required": "Waiting for input",
    "completed": "Completed",
    "failed": "Failed",
    "cancelled": "Cancelled",
}

DRAIN_FORMAT: dict[str, Label] = {
    "jsonl": "JSON lines",
    "ocsf": "OCSF events",
}
DRAIN_STATUS: dict[str, Label] = {
    "active": "Delivering",
    "failing": "Failing, retried with backoff",
}

DOMAINS: dict[str, dict[str, Label]] = {
    "grant_status": GRANT_STATUS,
    "scope": SCOPE,
    "request_status": REQUEST_STATUS,
    "request_origin": REQUEST_ORIGIN,
    "suspended_reason": SUSPENDED_REASON,
    "access_request_status": ACCESS_REQUEST_STATUS,
    "identity": IDENTITY,
    "channel": CHANNEL,
    "org_grant_status": ORG_GRANT_STATUS,
    "server_list_mode": SERVER_LIST_MODE,
    "injection_source": INJECTION_SOURCE,
    "injection_outcome": INJECTION_OUTCOME,
    "server_status": SERVER_STATUS,
    "trust": TRUST,
    "events_dialect": EVENTS_DIALECT,
    "unsubscribe_state": UNSUBSCRIBE_STATE,
    "digest_state": DIGEST_STATE,
    "actor_kind": ACTOR_KIND,
    "role": ROLE,
    "sign_in_method": SIGN_IN_METHOD,
    "subscription_mode": SUBSCRIPTION_MODE,
    "subscription_status": SUBSCRIPTION_STATUS,
    "received_kind": RECEIVED_KIND,
    "subscription_refresh_kind": SUBSCRIPTION_REFRESH_KIND,
    "endpoint_status": ENDPOINT_STATUS,
    "delivery_status": DELIVERY_STATUS,
    "firing_source": FIRING_SOURCE,
    "capped_priority": CAPPED_PRIORITY,
    "thread_refresh_kind": THREAD_REFRESH_KIND,
    "thread_refresh_status": THREAD_REFRESH_STATUS,
    "thread_refresh_trigger": THREAD_REFRESH_TRIGGER,
    "list_changes": LIST_CHANGES,
    "held_stream_state": HELD_STREAM_STATE,
    "task_status": TASK_STATUS,
    "drain_format": DRAIN_FORMAT,
    "drain_status": DRAIN_STATUS,
}

# Which words each model choice field uses ("app_label.Model.field" -> domain).
FIELD_DOMAINS: dict[str, str] = {
    "switchboard.AuditEntry.actor_kind": "actor_kind",
    "switchboard.User.role": "role",
    "switchboard.StaffSession.method": "sign_in_method",
    "switchboard.McpServer.trust": "trust",
    "switchboard.McpServer.status": "server_status",
    "switchboard.McpServer.events_dialect_override": "events_dialect",
    "switchboard.McpServer.events_list_changes": "list_changes",
    "switchboard.HeldStream.state": "held_stream_state",
    "switchboard.AuditDrain.format": "drain_format",
    "switchboard.AuditDrain.status": "drain_status",
    "consent.Grant.scope": "scope",
    "consent.Grant.status": "grant_status",
    "consent.Grant.identity": "identity",
    "consent.Grant.suspended_reason": "suspended_reason",
    "consent.Grant.channel": "channel",
    "consent.ConsentRequest.origin": "request_origin",
    "consent.ConsentRequest.status": "request_status",
    "consent.ConsentRequest.channel": "channel",
    "consent.AccessRequest.status": "access_request_status",
    "consent.HostPolicy.server_list_mode": "server_list_mode",
    "consent.OrgGrant.status": "org_grant_status",
    "consent.Injection.source": "injection_source",
    "consent.Injection.outcome": "injection_outcome",
    "subscriptions.Subscription.mode": "subscription_mode",
    "subscriptions.Subscription.status": "subscription_status",
    "subscriptions.Subscription.unsubscribe_state": "unsubscribe_state",
    "subscriptions.ReceivedEvent.digest_state": "digest_state",
    "subscriptions.ReceivedEvent.kind": "received_kind",
    "subscriptions.RefreshAttempt.kind": "subscription_refresh_kind",
    "subscriptions.TaskWatch.status": "task_status",
    "outbox.HostEndpoint.status": "endpoint_status",
    "outbox.HostDelivery.status": "delivery_status",
    "hooks.HookFiring.source": "firing_source",
    "hooks.HookPreference.max_priority": "capped_priority",
    "hooks.ThreadRefresh.kind": "thread_refresh_kind",
    "hooks.ThreadRefresh.status": "thread_refresh_status",
    "hooks.ThreadRefresh.trigger": "thread_refresh_trigger",
}


def label(domain: str, code: str | None, audience: Audience | None = None) -> str:
    """The words for ``code`` in ``domain``. An unknown domain is a programming
    error (KeyError); an unknown code (data older or newer than this table)
    falls back to the code with underscores as spaces rather than breaking a page."""
    if code in (None, ""):
        return ""
    words = DOMAINS[domain].get(str(code))
    if words is None:
        return str(code).replace("_", " ")
    if isinstance(words, Words):
        return words.for_audience(audience)
    return words
