"""The conversation fan-out's reads: two SQL statements per message (the
user's own credentials for each server included).

Why not the ORM here: a user message has a latency goal of a few
milliseconds beyond the slowest server, and the equivalent ORM queries (a
user with its host's policy; servers annotated with four subqueries) cost
~5 ms of Python per message to compile, for statements the database answers
in 0.1 ms. Everything else in the app uses the ORM. Both statements are
plain SQL that PostgreSQL and SQLite share, with parameters only.

The joins cannot multiply rows: one policy per host, one conversation per
id, one open grant per (user, server, scope) and one conversation state per server are all unique constraints.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

from django.db import connection
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from consent.models import (
    Conversation,
    Grant,
    HostPolicy,
    OrgGrant,
    OrgGrantGroup,
    OrgGrantStatus,
    Scope,
    ServerConversationState,
)
from switchboard.models import McpServer, User, UserGroup, UserServerCredential

USER_SQL = f"""
SELECT u.id, u.host_id, u.external_id, u.role, u.display_name,
       p.host_id AS policy_host_id, p.server_list_mode AS policy_mode,
       p.listed_server_ids AS policy_listed, p.required_hooks_trusted_only AS policy_required,
       p.max_chars_per_message AS policy_per_message, p.max_chars_per_server AS policy_per_server,
       p.conversation_budget_ms AS policy_budget_ms,
       t.host_id AS thread_host_id, t.server_ids AS thread_server_ids
FROM {User._meta.db_table} u
LEFT JOIN {HostPolicy._meta.db_table} p ON p.host_id = u.host_id
LEFT JOIN {Conversation._meta.db_table} t ON t.conversation_id = %s
WHERE u.host_id = %s AND u.external_id = %s AND u.role = 'end_user' AND u.deleted_at IS NULL
"""

SERVERS_SQL = f"""
SELECT s.id, s.host_id, s.name, s.url, s.headers, s.trust, s.priority, s.status,
       s.conversation_events, s.blocked_at,
       g.id AS live_grant_id, g.last_used_at AS grant_used_at,
       st.consecutive_timeouts AS timeouts, st.disabled_at AS switched_off_at,
       c.headers AS own_headers
FROM {McpServer._meta.db_table} s
LEFT JOIN {Grant._meta.db_table} g
       ON g.server_id = s.id AND g.user_id = %s AND g.scope = %s AND g.status = 'active'
      AND (g.expires_at IS NULL OR g.expires_at > %s)
      AND (g.org_grant_id IS NULL OR EXISTS (
           SELECT 1 FROM {OrgGrant._meta.db_table} o
           WHERE o.id = g.org_grant_id AND o.status = '{OrgGrantStatus.ACTIVE.value}'
             AND (o.expires_at IS NULL OR o.expires_at > %s)
             AND (o.all_users = %s OR EXISTS (
                  SELECT 1 FROM {OrgGrantGroup._meta.db_table} og
                  JOIN {UserGroup._meta.db_table} ug ON ug.name = og.name
                  WHERE og.org_grant_id = o.id AND ug.user_id = g.user_id))))
LEFT JOIN {ServerConversationState._meta.db_table} st ON st.server_id = s.id
LEFT JOIN {UserServerCredential._meta.db_table} c ON c.server_id = s.id AND c.user_id = %s
WHERE s.host_id = %s AND s.deleted_at IS NULL AND {{where}}
"""


if TYPE_CHECKING:

    class PlannedServer(McpServer):
        """A server as ``candidate_servers`` returns it: the model, plus the
        columns its SQL joins in (for the type checker only)."""

        live_grant_id: str | None
        grant_used_at: datetime | None
        timeouts: int | None
        switched_off_at: datetime | None
        own_headers: dict | None

else:
    PlannedServer = McpServer


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


def _moment(value: Any) -> datetime | None:
    """An aware datetime from a raw timestamp column, whatever the backend.

    PostgreSQL hands back an aware datetime. SQLite stores UTC without an
    offset and, depending on its converters, hands back text or a *naive*
    datetime; both are UTC and must become aware, or comparing them with
    ``timezone.now()`` raises.
    """
    if value is None:
        return None
    moment = value if isinstance(value, datetime) else parse_datetime(str(value))
    if moment is not None and timezone.is_naive(moment):
        moment = timezone.make_aware(moment, UTC)
    return moment


@dataclass
class UserContext:
    user: User
    policy: HostPolicy
    thread_host_id: str | None
    thread_server_ids: list[str] | None


def user_context(*, host_id: str, external_id: str, conversation_id: str) -> UserContext | None:
    """The user, the host's consent policy and the conversation thread, at once."""
    found = list(User.objects.raw(USER_SQL, [conversation_id, host_id, external_id]))
    if not found:
        return None
    # raw() sets the joined columns (policy_*, thread_*) as attributes.
    user: Any = found[0]
    if user.policy_host_id is not None:
        policy = HostPolicy(
            host_id=host_id,
            server_list_mode=user.policy_mode,
            listed_server_ids=_json(user.policy_listed) or [],
            required_hooks_trusted_only=bool(user.policy_required),
            max_chars_per_message=user.policy_per_message,
            max_chars_per_server=user.policy_per_server,
            conversation_budget_ms=user.policy_budget_ms,
        )
    else:
        policy = HostPolicy(host_id=host_id)
    thread_ids = _json(user.thread_server_ids) if user.thread_host_id is not None else None
    return UserContext(
        user=user,
        policy=policy,
        thread_host_id=user.thread_host_id,
        thread_server_ids=thread_ids,
    )


def candidate_servers(
    *, host_id: str, user_id: str, ids: list[str] | None, conversation_events_only: bool
) -> list[PlannedServer]:
    """The host's servers (by id, or every one that offers conversation
    events), each with ``live_grant_id``, ``grant_used_at``, ``timeouts``,
    ``switched_off_at`` and the user's ``own_headers`` for it (decrypted).
    Which credentials a call carries is still decided by
    ``switchboard.selectors.mcp_targets`` (one place for every app); this
    read only saves it a query."""
    now = timezone.now()
    # The grant's join repeats ``Grant.objects.live``: its own expiry, then
    # an organisation grant's status, expiry and the user's groups.
    params: list[Any] = [user_id, Scope.CONVERSATION_READ, now, now, True, user_id, host_id]
    if ids is not None:
        if not ids:
            return []
        where = f"s.id IN ({', '.join(['%s'] * len(ids))})"
        params += ids
    elif conversation_events_only:
        where = "s.conversation_events = %s"
        params.append(True)
    else:
        where = "1 = 1"
    servers = cast(
        "list[PlannedServer]",
        list(McpServer.objects.raw(SERVERS_SQL.format(where=where), params)),
    )
    headers = UserServerCredential._meta.get_field("headers")
    for server in servers:
        server.grant_used_at = _moment(server.grant_used_at)
        server.switched_off_at = _moment(server.switched_off_at)
        # A joined column skips the field's decryption; apply it here.
        server.own_headers = (
            headers.from_db_value(server.own_headers, None, connection)
            if server.own_headers is not None
            else None
        )
    return servers
