"""The kill switch: block one server for the whole host, at once.

Blocking suspends every live grant and revokes every subscription (each app
does its part through ``switchboard.signals.server_blocking``), and from
then on no path reaches the server: the message plan, the lifecycle's
servers, thread refreshes, subscriptions, consent requests and re-syncs all
skip blocked servers. Unblocking restores nothing by itself: grants stay
suspended until their users consent again, subscriptions stay revoked.
"""

from __future__ import annotations

from collections import Counter

from django.db import transaction
from django.utils import timezone

from switchboard.actors import Actor
from switchboard.errors import Conflict
from switchboard.models import McpServer
from switchboard.services.audit import audit_record
from switchboard.services.server_listen import LISTEN
from switchboard.services.server_notices import server_notice
from switchboard.sessions.wakeup import held_stream_changed
from switchboard.signals import server_blocking

# What every answer names, even when an app had nothing to stop.
_COUNTS = ("grants_suspended", "subscriptions_revoked")

# Why a server is blocked: each reason lifts only its own block.
STAFF = "staff"  # the kill switch
POLICY = "policy"  # the host policy's server list now denies it


def server_block_refuse(server: McpServer) -> None:
    """For the paths that would start something with the server."""
    if server.blocked_at is not None:
        raise Conflict(
            f"server {server.id} is blocked by the organisation",
            field="server",
            code="server_blocked",
        )


@transaction.atomic
def server_block(*, server: McpServer, actor: Actor, reason: str = STAFF) -> dict[str, int]:
    """Block it; returns what was stopped. Blocking a blocked server again
    stops what may have started since (nothing should have) and counts it;
    a staff block of a server the policy blocked makes it staff's."""
    server = McpServer.objects.select_for_update(no_key=True).get(pk=server.pk)
    first = server.blocked_at is None
    if first or (reason == STAFF and server.blocked_reason != STAFF):
        server.blocked_at = server.blocked_at or timezone.now()
        server.blocked_by = actor.label[:200]
        server.blocked_reason = reason
        server.next_sync_at = None
        server.save(
            update_fields=[
                "blocked_at",
                "blocked_by",
                "blocked_reason",
                "next_sync_at",
                "updated_at",
            ]
        )
        held_stream_changed(LISTEN, server.id)  # its subscriptions/listen session closes
    counts: Counter[str] = Counter({name: 0 for name in _COUNTS})
    for _, stopped in server_blocking.send(sender=McpServer, server=server, actor=actor):
        counts.update(stopped or {})
    answer = {name: counts[name] for name in sorted(counts)}
    audit_record(
        host_id=server.host_id,
        kind="server.blocked",
        actor=actor,
        server_id=server.id,
        subject_type="server",
        subject_id=server.id,
        summary=(
            f"Server {server.name} blocked for everyone"
            f"{' (the host policy denies it)' if reason == POLICY else ''}: "
            f"{answer['grants_suspended']} consent(s) suspended, "
            f"{answer['subscriptions_revoked']} subscription(s) revoked"
        ),
        detail={**answer, "reason": reason, "already_blocked": not first},
    )
    server_notice(server=server, status="blocked", reason="blocked_by_organisation")
    return answer


@transaction.atomic
def server_unblock(*, server: McpServer, actor: Actor, reason: str = STAFF) -> McpServer:
    """Lift the block. Nothing it stopped comes back by itself: users consent
    again, hosts subscribe again. The policy lifts only its own blocks;
    staff lift theirs, not one the policy still wants (change the policy)."""
    server = McpServer.objects.select_for_update(no_key=True).get(pk=server.pk)
    if server.blocked_at is None:
        return server
    if server.blocked_reason == POLICY and reason != POLICY:
        raise Conflict(
            f"the host policy denies {server.name}; allow it in the policy to unblock it",
            field="server",
            code="blocked_by_policy",
        )
    if server.blocked_reason == STAFF and reason == POLICY:
        return server  # the policy allows it again; the kill switch still holds
    server.blocked_at = None
    server.blocked_by = ""
    server.blocked_reason = ""
    server.next_sync_at = timezone.now()  # what it declares may have changed meanwhile
    server.save(
        update_fields=["blocked_at", "blocked_by", "blocked_reason", "next_sync_at", "updated_at"]
    )
    held_stream_changed(LISTEN, server.id)
    audit_record(
        host_id=server.host_id,
        kind="server.unblocked",
        actor=actor,
        server_id=server.id,
        subject_type="server",
        subject_id=server.id,
        summary=f"Server {server.name} unblocked; its users must consent again",
        detail={"reason": reason},
    )
    server_notice(server=server, status=server.status, reason="unblocked")
    return server
