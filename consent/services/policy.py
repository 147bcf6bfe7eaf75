"""Host policy (staff) and the conversation on/off switch of each server."""

from __future__ import annotations

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from consent import live
from consent.models import Grant, HostPolicy, Scope, ServerConversationState, ServerListMode
from switchboard.actors import Actor
from switchboard.errors import Invalid
from switchboard.models import Host, McpServer
from switchboard.services.audit import audit_record
from switchboard.services.server_block import POLICY, server_block, server_unblock
from switchboard.services.server_notices import server_notice

POLICY_FIELDS = (
    "server_list_mode",
    "listed_server_ids",
    "required_hooks_trusted_only",
    "context_tools_trusted_only",
    "max_chars_per_message",
    "max_chars_per_server",
    "conversation_budget_ms",
)


@transaction.atomic
def host_policy_update(*, host: Host, actor: Actor, **changes) -> HostPolicy:
    """Change some of the policy's fields; one ledger entry with before/after."""
    unknown = set(changes) - set(POLICY_FIELDS)
    if unknown:
        raise Invalid(f"unknown policy field {sorted(unknown)[0]!r}", field=sorted(unknown)[0])
    policy, _ = HostPolicy.objects.select_for_update(no_key=True).get_or_create(host=host)
    if "server_list_mode" in changes and changes["server_list_mode"] not in ServerListMode.values:
        raise Invalid("unknown server list mode", field="server_list_mode")
    if "listed_server_ids" in changes:
        ids = sorted(set(changes["listed_server_ids"]))
        known = set(McpServer.objects.filter(host=host, pk__in=ids).values_list("pk", flat=True))
        if set(ids) - known:
            raise Invalid(
                "the list names a server this host does not have", field="listed_server_ids"
            )
        changes["listed_server_ids"] = ids
    if (
        "conversation_budget_ms" in changes
        and not 50 <= changes["conversation_budget_ms"] <= 10_000
    ):
        raise Invalid("the budget must be between 50 and 10,000 ms", field="conversation_budget_ms")
    before = {name: getattr(policy, name) for name in POLICY_FIELDS}
    for name, value in changes.items():
        setattr(policy, name, value)
    policy.save()
    after = {name: getattr(policy, name) for name in POLICY_FIELDS}
    stopped = _servers_follow_policy(
        host=host, before=HostPolicy(host=host, **before), after=policy, actor=actor
    )
    changed = {
        name: {"from": before[name], "to": after[name]}
        for name in POLICY_FIELDS
        if before[name] != after[name]
    }
    if changed:
        audit_record(
            host_id=host.id,
            kind="policy.updated",
            actor=actor,
            subject_type="host_policy",
            subject_id=host.id,
            summary=f"Consent policy changed: {', '.join(sorted(changed))}",
            detail={"changed": changed, "servers_blocked": stopped},
        )
    return policy


def _servers_follow_policy(
    *, host: Host, before: HostPolicy, after: HostPolicy, actor: Actor
) -> dict[str, dict[str, int]]:
    """A server the new list denies is blocked as by the kill switch (live
    grants suspended, subscriptions revoked, nothing reaches it); one it
    allows again is unblocked if the policy was what blocked it (and, like
    any unblock, restores nothing by itself). Returns what each block stopped."""
    stopped = {}
    for server in McpServer.objects.filter(host=host, deleted_at__isnull=True):
        was, now = before.allows_server(server.id), after.allows_server(server.id)
        if was and not now:
            stopped[server.id] = server_block(server=server, actor=actor, reason=POLICY)
        elif now and not was and server.blocked_reason == POLICY:
            server_unblock(server=server, actor=actor, reason=POLICY)
    return stopped


def _state(server: McpServer) -> ServerConversationState:
    state, _ = ServerConversationState.objects.get_or_create(
        server=server, defaults={"host_id": server.host_id}
    )
    return state


def conversation_timeouts_record(
    *, timed_out: dict[str, str], answered_ids: list[str], limit: int
) -> list[str]:
    """Count timeouts in a row per server (``timed_out``: server id → host id);
    returns the servers that just reached ``limit`` and were switched off by
    this call — each exactly once, also when several workers count at once.
    Three statements in the usual case, whatever the number of servers."""
    now = timezone.now()
    if answered_ids:
        ServerConversationState.objects.filter(
            server_id__in=answered_ids, consecutive_timeouts__gt=0
        ).update(consecutive_timeouts=0)
    if not timed_out:
        return []
    ServerConversationState.objects.bulk_create(
        [ServerConversationState(server_id=sid, host_id=hid) for sid, hid in timed_out.items()],
        ignore_conflicts=True,
    )
    ServerConversationState.objects.filter(server_id__in=list(timed_out)).update(
        consecutive_timeouts=F("consecutive_timeouts") + 1, last_timeout_at=now
    )
    reached = ServerConversationState.objects.filter(
        server_id__in=list(timed_out), disabled_at__isnull=True, consecutive_timeouts__gte=limit
    ).values_list("server_id", flat=True)
    disabled = []
    for server_id in list(reached):
        # The conditional update claims the transition: only one caller wins it.
        won = ServerConversationState.objects.filter(
            server_id=server_id, disabled_at__isnull=True
        ).update(disabled_at=now, disabled_reason="timeouts")
        if won:
            disabled.append(server_id)
    return disabled


@transaction.atomic
def conversation_disable(
    *, server: McpServer, actor: Actor, reason: str, timeouts: int = 0
) -> None:
    """Record and announce that a server was switched off for conversation events."""
    audit_record(
        host_id=server.host_id,
        kind="server.conversation_disabled",
        actor=actor,
        server_id=server.id,
        subject_type="server",
        subject_id=server.id,
        summary=f"{server.name} was switched off for conversations after {timeouts} timeouts in a row",
        detail={"reason": reason, "timeouts": timeouts},
    )
    _announce(server, status="disabled", reason=reason)


@transaction.atomic
def conversation_reenable(*, server: McpServer, actor: Actor) -> bool:
    """One click: the server receives messages again (its timeout count starts over)."""
    state = _state(server)
    won = ServerConversationState.objects.filter(pk=state.pk, disabled_at__isnull=False).update(
        disabled_at=None, disabled_reason="", consecutive_timeouts=0
    )
    if not won:
        return False
    audit_record(
        host_id=server.host_id,
        kind="server.conversation_enabled",
        actor=actor,
        server_id=server.id,
        subject_type="server",
        subject_id=server.id,
        summary=f"{server.name} receives conversation messages again",
    )
    _announce(server, status="enabled", reason="conversation_reenabled")
    return True


def _announce(server: McpServer, *, status: str, reason: str) -> None:
    """The host (``server.updated``), staff pages, and the cards of users who
    consented to this server."""

    server_notice(
        server=server,
        status=status if status == "disabled" else server.status,
        reason=reason,
    )
    users = (
        Grant.objects.live()
        .filter(server=server, scope=Scope.CONVERSATION_READ)
        .select_related("user")
        .order_by()
    )
    for grant in users[:200]:
        live.server_cards_changed(grant.user)
