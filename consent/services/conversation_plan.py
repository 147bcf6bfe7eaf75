"""Step 1 of a user message (``consent.services.conversation``): check what
the host sent against the documented limits, then plan who receives it.

The plan is two reads (``consent.plan_sql``) and no writes: the user, the
servers of the request or thread, which of them have a live
``conversation:read`` grant *now* (no cache, so a revoke counts for the very
next message), policy and switch-offs. Every server left out is named with
its reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings

from consent.fanout import Target
from consent.models import HostPolicy
from consent.plan_sql import candidate_servers, user_context
from switchboard.errors import DomainError, Invalid, NotFound
from switchboard.models import Host, User
from switchboard.selectors.mcp_targets import mcp_targets_for

ID_MAX = 200


class TooLarge(DomainError):
    status = 413
    code = "too_large"


@dataclass
class Plan:
    user: User
    policy: HostPolicy
    targets: list[Target]
    skipped: list[dict[str, str]]
    listed: list[str]  # the servers the host named on this call (remembered on the thread)
    thread_servers: list[str] | None = None  # None: the thread is new
    timeouts: dict[str, int] = field(default_factory=dict)  # timeouts in a row, where > 0

    @property
    def budget(self) -> float:
        return self.policy.conversation_budget_ms / 1000


def _check_id(value: str, name: str) -> str:
    if not 1 <= len(value) <= ID_MAX or not value.isprintable() or "/" in value:
        raise Invalid(f"{name} must be 1–200 printable characters without '/'", field=name)
    return value


def message_validate(
    *, conversation_id: str, message_id: str, content: str, recent_history: list[dict] | None
) -> None:
    """The documented limits: CONVERSATION_CONTENT_MAX_CHARS per text (413),
    CONVERSATION_HISTORY_MAX_ITEMS history entries (422)."""
    _check_id(conversation_id, "conversation_id")
    _check_id(message_id, "message_id")
    limit = settings.CONVERSATION_CONTENT_MAX_CHARS
    if len(content) > limit:
        raise TooLarge(f"content is longer than {limit} characters", field="content")
    history = recent_history or []
    if len(history) > settings.CONVERSATION_HISTORY_MAX_ITEMS:
        raise Invalid(
            f"recent_history holds more than {settings.CONVERSATION_HISTORY_MAX_ITEMS} entries",
            field="recent_history",
        )
    for index, item in enumerate(history):
        if len(item["content"]) > limit:
            raise TooLarge(
                f"recent_history[{index}] is longer than {limit} characters",
                field=f"recent_history.{index}.content",
            )


def conversation_plan(
    *, host: Host, conversation_id: str, user_external_id: str, server_ids: list[str] | None
) -> Plan:
    """Decide who receives the message: two reads (``consent.plan_sql``), no writes."""
    context = user_context(
        host_id=host.id, external_id=user_external_id, conversation_id=conversation_id
    )
    if context is None:
        raise NotFound(
            f"no user {user_external_id!r} for this host", field="user", code="user_not_found"
        )
    if context.thread_host_id is not None and context.thread_host_id != host.id:
        raise NotFound(
            f"no conversation {conversation_id!r} for this host", field="conversation_id"
        )
    listed = list(dict.fromkeys(server_ids or []))
    if listed:
        found = {
            s.id: s
            for s in candidate_servers(
                host_id=host.id, user_id=context.user.id, ids=listed, conversation_events_only=False
            )
        }
        missing = [sid for sid in listed if sid not in found]
        if missing:
            raise NotFound(f"no server {missing[0]!r} for this host", field="servers")
        candidates = [found[sid] for sid in listed]
    else:
        candidates = candidate_servers(
            host_id=host.id,
            user_id=context.user.id,
            ids=context.thread_server_ids or None,
            conversation_events_only=True,
        )
    policy = context.policy
    targets, skipped = [], []
    callable_servers = [
        s
        for s in candidates
        if policy.allows_server(s.id)
        and s.blocked_at is None
        and s.conversation_events
        and s.live_grant_id
        and not s.switched_off_at
        and s.url
    ]
    credentials = mcp_targets_for(
        user_id=context.user.id,
        servers=callable_servers,
        own_headers={s.id: s.own_headers for s in callable_servers},
    )
    for server in sorted(candidates, key=lambda s: (s.priority, s.name, s.id)):
        if server.blocked_at is not None:
            skipped.append({"server": server.id, "reason": "disabled", "detail": "blocked"})
        elif not policy.allows_server(server.id):
            skipped.append({"server": server.id, "reason": "disabled", "detail": "host_policy"})
        elif not server.conversation_events:
            # Listed by the host, but it never asked to see messages.
            skipped.append({"server": server.id, "reason": "not_supported"})
        elif server.live_grant_id is None:
            skipped.append({"server": server.id, "reason": "no_consent"})
        elif server.switched_off_at is not None:
            skipped.append({"server": server.id, "reason": "disabled", "detail": "timeouts"})
        elif not server.url:
            skipped.append({"server": server.id, "reason": "disabled", "detail": "host_managed"})
        else:
            targets.append(
                Target(
                    server=server,
                    grant_id=server.live_grant_id,
                    headers=dict(credentials[server.id].headers),
                    grant_used_at=server.grant_used_at,
                )
            )
    return Plan(
        user=context.user,
        policy=policy,
        targets=targets,
        skipped=skipped,
        listed=listed,
        thread_servers=context.thread_server_ids,
        timeouts={s.id: s.timeouts for s in candidates if s.timeouts},
    )
