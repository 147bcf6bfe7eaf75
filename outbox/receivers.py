"""The outbox's part in what the core announces (``switchboard.signals``)."""

from __future__ import annotations

from typing import Any

from outbox.emit import host_event_emit
from switchboard.models import McpServer


def server_status_changed(*, server: McpServer, status: str, reason: str, **_: Any) -> None:
    """The host hears of it as a ``server.updated`` delivery."""
    data = {"server_id": server.id, "status": status}
    if reason:
        data["reason"] = reason
    host_event_emit(host_id=server.host_id, type="server.updated", data=data)
