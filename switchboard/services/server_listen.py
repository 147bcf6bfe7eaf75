"""Hearing that a server's event types changed: one ``subscriptions/listen``
per SEP-3415 server that declares ``listChanged`` (SEP-3415 §"Dynamic event types", case 59).

The session worker holds the stream (kind ``listen``). The server must echo
``eventsListChanged`` in its acknowledgement; when it does not, the server is
marked ``relist`` and left to the periodic re-sync (SERVER_RESYNC_INTERVAL),
which runs for every server anyway, as the extension asks of clients even
with a live stream. A ``notifications/events/list_changed`` on the stream
re-syncs the server at once: every ``events/list`` page is read again and
types that went away end their subscriptions (``server.updated``).
"""

from __future__ import annotations

import logging

from switchboard.mcp.dialects import SEP
from switchboard.models import ListChanges, McpServer
from switchboard.queue import enqueue
from switchboard.selectors.mcp_targets import mcp_target_for
from switchboard.sessions.db import in_db_thread
from switchboard.sessions.registry import HeldKind, HoldOutcome
from switchboard.sessions.report import StreamReport

log = logging.getLogger(__name__)

LISTEN = "listen"
FILTER = {"eventsListChanged": True}


def _wants_listen(server: McpServer) -> bool:
    events = (server.capabilities or {}).get("events")
    return (
        server.deleted_at is None
        and server.blocked_at is None
        and bool(server.url)
        and server.events_dialect == SEP
        and isinstance(events, dict)
        and events.get("listChanged") is True
        and server.events_list_changes != ListChanges.RELIST
    )


def servers_to_listen() -> list[str]:
    candidates = McpServer.objects.filter(deleted_at__isnull=True, blocked_at__isnull=True).exclude(
        url=""
    )
    return [server.id for server in candidates if _wants_listen(server)]


def server_wants_listen(server_id: str) -> bool:
    server = McpServer.objects.filter(pk=server_id).first()
    return server is not None and _wants_listen(server)


def _list_changes_set(server_id: str, value: str) -> None:
    McpServer.objects.filter(pk=server_id).exclude(events_list_changes=value).update(
        events_list_changes=value
    )


def _event_types_changed(server_id: str) -> None:
    enqueue("switchboard.sync_server", server_id)


def _target(server_id: str):
    server = McpServer.objects.filter(pk=server_id).first()
    if server is None or not _wants_listen(server):
        return None
    return mcp_target_for(user_id=None, server=server)


async def server_listen_hold(server_id: str, report: StreamReport) -> HoldOutcome:
    target = await in_db_thread(_target)(server_id)
    if target is None:
        return "done"
    async with report.sessions.borrow(target) as session:
        if session.is_legacy:
            # subscriptions/listen exists from 2026-07-28 on only.
            await in_db_thread(_list_changes_set)(server_id, ListChanges.RELIST)
            return "done"
        async with session.listen(notifications=FILTER) as stream:
            async for message in stream:
                report.frame()
                if message.kind == "acknowledged":
                    honoured = message.params.get("notifications") or {}
                    if honoured.get("eventsListChanged") is not True:
                        log.info("%s did not acknowledge eventsListChanged; re-listing", server_id)
                        await in_db_thread(_list_changes_set)(server_id, ListChanges.RELIST)
                        return "done"
                    await in_db_thread(_list_changes_set)(server_id, ListChanges.LISTEN)
                    await report.connected()
                elif message.kind == "list_changed":
                    await in_db_thread(_event_types_changed)(server_id)
    # The server closed it (gracefully or not): listen again after a backoff.
    return "reconnect"


LISTEN_KIND = HeldKind(
    name=LISTEN,
    wanted=servers_to_listen,
    still_wanted=server_wants_listen,
    hold=server_listen_hold,
)
