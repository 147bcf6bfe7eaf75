"""Plain-language views of grants and requests for the pages.

Templates stay simple (and autoescaped): everything a person reads is
worded here, from the snapshot the user is (or was) shown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from consent.models import ConsentRequest, Grant, GrantStatus, HostPolicy, Identity, Scope
from consent.services.request_rules import additions_open
from consent.snapshots import (
    HOOK_EVENT_WORDS,
    PRIORITY_WORDS,
    snapshot_changes,
    snapshot_event_types,
)

DEFAULT_SAMPLE = "What did we decide about the database schema?"
SAMPLE_HISTORY = [
    {"role": "user", "content": "Let's plan the release."},
    {"role": "assistant", "content": "Sure — what should go into it?"},
]

SCOPE_TITLES: dict[str, str] = {
    Scope.CONVERSATION_READ: "Read your messages",
    Scope.HOOKS: "Add instructions at moments of an agent session",
    Scope.EVENTS: "Send you events from outside",
}

SCOPE_EXPLAINERS: dict[str, str] = {
    Scope.CONVERSATION_READ: (
        "Every message you send in a conversation is also sent to {server}, with your last "
        "few messages and replies. {server} may answer with text that is added to what the "
        "assistant reads (“context”). That text comes from {server}, not from you or the app."
    ),
    Scope.HOOKS: (
        "{server} may add its own instructions for the assistant at the moments listed "
        "below. Allow each one separately."
    ),
    Scope.EVENTS: (
        "{server} may send events (for example “a build finished”) that the app receives "
        "on your behalf. Allow each kind separately."
    ),
}


def identity_words(identity: str, *, server: str, host: str) -> str:
    if identity == Identity.USER:
        return (
            f"{server} will see you as yourself: {host} gave us your own sign-in for "
            f"{server}, and we use it for your messages."
        )
    return (
        f"{server} will see {host}’s shared account, not your own account with {server}: "
        f"{host} has not given us a sign-in of yours for it."
    )


def _matcher_words(matcher: Any) -> str:
    if not isinstance(matcher, dict) or not matcher:
        return ""
    parts = []
    if matcher.get("tool_name"):
        parts.append(f"the tool is “{matcher['tool_name']}”")
    if matcher.get("input_contains"):
        parts.append(f"its input contains “{matcher['input_contains']}”")
    others = {k: v for k, v in matcher.items() if k not in ("tool_name", "input_contains")}
    if others:
        parts.append("also: " + json.dumps(others, ensure_ascii=False))
    return "only when " + " and ".join(parts)


@dataclass
class HookView:
    hook_id: str
    event: str
    when: str
    matcher: str
    text: str | None
    tool: str | None
    tool_args: str | None
    priority: str
    priority_words: str
    effective_priority: str
    approved: bool
    raw: str


@dataclass
class GrantView:
    grant: Grant
    title: str
    explainer: str
    identity: str
    hooks: list[HookView] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    # MCPE: the agent handlers subscriptions under this grant may run.
    handlers: list[dict[str, Any]] = field(default_factory=list)
    changes: dict[str, list[str]] | None = None
    error: str = ""
    # A grant already active when the request asked: the request adds
    # ``hooks``/``events`` (only those are offered); what stays allowed whatever
    # the answer is in ``kept_hooks``/``kept_events``.
    asks_more: bool = False
    kept_hooks: list[HookView] = field(default_factory=list)
    kept_events: list[str] = field(default_factory=list)
    denied_hooks: int = 0
    denied_events: list[str] = field(default_factory=list)

    asked_new: bool = False

    @property
    def kept_after_answer(self) -> bool:
        """Once answered: earlier consent that this request left as it was
        (nothing new was asked, or what was new was not allowed)."""
        return (
            self.asks_more
            and self.grant.status == GrantStatus.ACTIVE
            and (not self.asked_new or bool(self.denied_events or self.denied_hooks))
        )

    @property
    def nothing_new(self) -> bool:
        """Already active and asked nothing more: nothing to answer."""
        return self.asks_more and not self.hooks and not self.events

    @property
    def undecided(self) -> bool:
        return self.grant.status in (GrantStatus.PENDING, GrantStatus.SUSPENDED)


def hook_view(entry: dict, *, approved: set[str], policy: HostPolicy, trusted: bool) -> HookView:
    raw = entry.get("declaration") or {}
    raw = raw if isinstance(raw, dict) else {}
    priority: str = raw["priority"] if isinstance(raw.get("priority"), str) else ""
    event: str = raw["event"] if isinstance(raw.get("event"), str) else ""
    args = raw.get("context_tool_args")
    return HookView(
        hook_id=entry["hook_id"],
        event=event,
        when=HOOK_EVENT_WORDS.get(event, event or "at an unknown moment"),
        matcher=_matcher_words(raw.get("matcher")),
        text=raw.get("context") if isinstance(raw.get("context"), str) else None,
        tool=raw.get("context_tool") if isinstance(raw.get("context_tool"), str) else None,
        tool_args=json.dumps(args, ensure_ascii=False) if args is not None else None,
        priority=priority,
        priority_words=PRIORITY_WORDS.get(priority, priority),
        effective_priority=policy.effective_hook_priority(priority=priority, trusted=trusted),
        approved=entry["hook_id"] in approved,
        raw=json.dumps(raw, indent=2, ensure_ascii=False, sort_keys=True),
    )


def grant_view(
    grant: Grant,
    *,
    policy: HostPolicy,
    host_name: str,
    added: dict[str, list[str]] | None = None,
    asked: dict[str, list[str]] | None = None,
) -> GrantView:
    server = grant.server
    shown = grant.shown or {}
    declared = shown.get("declarations") or {}
    view = GrantView(
        grant=grant,
        title=SCOPE_TITLES.get(grant.scope, grant.scope),
        explainer=SCOPE_EXPLAINERS.get(grant.scope, "").format(server=server.name),
        identity=identity_words(
            shown.get("identity") or grant.identity, server=server.name, host=host_name
        ),
        handlers=list(shown.get("handlers") or []),
    )
    # Pre-tick what was approved before; a first ask starts with everything ticked
    # under the scope's own Allow / Don't allow choice.
    approved = set(grant.approved_hook_ids)
    fresh = grant.status == GrantStatus.PENDING and not grant.approved_hash
    for entry in declared.get("hooks", []):
        hv = hook_view(entry, approved=approved, policy=policy, trusted=server.trust == "trusted")
        hv.approved = hv.approved or fresh
        view.hooks.append(hv)
    chosen = set(grant.approved_event_types)
    for entry in declared.get("event_types", []):
        raw = entry.get("declaration") or {}
        view.events.append(
            {
                "name": entry["name"],
                "description": raw.get("description") if isinstance(raw, dict) else "",
                "offered": entry.get("declaration") is not None,
                "approved": entry["name"] in chosen or fresh,
            }
        )
    if grant.status == GrantStatus.SUSPENDED and grant.approved_shown:
        view.changes = snapshot_changes(grant.approved_shown, shown)
    if asked is not None and grant.status == GrantStatus.ACTIVE:
        _split_what_is_kept(view, added or {"hook_ids": [], "event_types": []}, asked)
    return view


def _split_what_is_kept(view: GrantView, added: dict, asked: dict) -> None:
    """Offer only what the request adds (ticked, as on a first ask); list what
    stays allowed apart, and, once answered, what was not allowed."""
    grant = view.grant
    new_hooks, new_types = set(added["hook_ids"]), set(added["event_types"])
    view.asks_more = True
    view.kept_hooks = [h for h in view.hooks if h.hook_id in grant.approved_hook_ids]
    view.kept_events = list(grant.approved_event_types)
    view.hooks = [h for h in view.hooks if h.hook_id in new_hooks]
    view.events = [e for e in view.events if e["name"] in new_types]
    for h in view.hooks:
        h.approved = True
    for e in view.events:
        e["approved"] = e["offered"]
    view.asked_new = bool(asked.get("hook_ids") or asked.get("event_types"))
    view.denied_hooks = len(set(asked.get("hook_ids", [])) - set(grant.approved_hook_ids))
    view.denied_events = sorted(set(asked.get("event_types", [])) - set(grant.approved_event_types))


def request_views(consent_request: ConsentRequest, *, policy: HostPolicy) -> list[GrantView]:

    grants = consent_request.grants.select_related("server").order_by("scope")
    return [
        grant_view(
            g,
            policy=policy,
            host_name=consent_request.host.name,
            added=additions_open(consent_request, g),
            asked=(consent_request.additions or {}).get(g.id),
        )
        for g in grants
    ]


def preview_json(*, sample: str, message_id: str = "msg_preview") -> str:
    """What a server with conversation:read receives for ``sample``."""
    params = {
        "messageId": message_id,
        "content": sample,
        "recentHistory": SAMPLE_HISTORY,
    }
    body = {"jsonrpc": "2.0", "method": "conversation/userMessage", "params": params}
    return json.dumps(body, indent=2, ensure_ascii=False)


def event_type_names(grant: Grant) -> list[str]:
    return snapshot_event_types(grant.shown)


# The steps of a consent as the ledger records them (``consent.<step>``),
# worded for the printable consent record (a staff page: "the user").
CONSENT_STEP_WORDS = {
    "requested": "The user was asked",
    "approved": "The user allowed it",
    "denied": "The user did not allow it",
    "additions_denied": "The user did not allow what was added",
    "revoked": "It was taken back",
    "expired": "It expired",
    "suspended": "Put on hold",
    "identity_changed": "The account it acts as changed",
}


def consent_step_words(kind: str) -> str:
    """Words for a recorded step; a step newer than this table reads as its
    code with spaces rather than breaking the record."""
    return CONSENT_STEP_WORDS.get(kind, kind.replace("_", " "))
