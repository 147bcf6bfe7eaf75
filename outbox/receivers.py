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


def audit_checkpoint_issued(*, checkpoint: Any, payload: dict[str, Any], **_: Any) -> None:
    """The host witnesses its ledger: each checkpoint reaches it as an
    ``audit.checkpoint`` delivery it can keep and check."""
    host_event_emit(host_id=checkpoint.host_id, type="audit.checkpoint", data=payload)


def checkpoint_last_received(host_id: str) -> Any:
    """When the host's endpoint last took an ``audit.checkpoint`` (None: never)."""
    from outbox.models import HostDelivery

    return (
        HostDelivery.objects.filter(host_id=host_id, type="audit.checkpoint")
        .exclude(delivered_at=None)
        .order_by("-delivered_at")
        .values_list("delivered_at", flat=True)
        .first()
    )
