"""The Celery worker uses the same MCP layer as the async view, in one run."""

import time

from switchboard.models import McpServer
from switchboard.services.servers import server_register
from tests.factories import SYSTEM


def _wait_for(predicate, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_beat_and_the_worker_resync_a_due_server(live, tpersonas, refserver):
    server = server_register(host=tpersonas.acme, name="Ref", url=refserver.mcp_url, actor=SYSTEM)
    assert server.status == "active"
    refserver.control(
        "POST",
        "capabilities",
        {"declarations": [{"event": "session_end", "context": "bye", "priority": "suggestion"}]},
    )
    synced_at = server.last_synced_at
    McpServer.objects.filter(pk=server.pk).update(next_sync_at=server.last_synced_at)  # due now

    def resynced():
        current = McpServer.objects.get(pk=server.pk)
        return current.last_synced_at > synced_at

    assert _wait_for(resynced), "beat/worker did not re-sync the due server"
    current = McpServer.objects.get(pk=server.pk)
    assert [d.raw["event"] for d in current.hook_declarations.filter(removed_at__isnull=True)] == [
        "session_end"
    ]
