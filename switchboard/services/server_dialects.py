"""Which events dialect a server speaks, as its sync and its answers tell us
(the rules themselves: ``switchboard.mcp.dialects``)."""

from __future__ import annotations

from django.db import transaction

from switchboard.actors import Actor
from switchboard.mcp import dialects
from switchboard.models import McpServer
from switchboard.services.audit import audit_record

# The server itself, through its answers (a dialect confirmed by its errors).
SYSTEM = Actor.system("server sync")


def dialect_apply_detection(server: McpServer, detected: dialects.Detection) -> None:
    """What the capability's place says, unless the server's own error codes
    already settled an ambiguous case the same sync would only guess at."""
    settled_by_error = server.events_dialect_confirmed and not detected.confirmed
    if settled_by_error and server.events_dialect_detected in dialects.DIALECTS:
        return
    server.events_dialect_detected = detected.dialect
    server.events_dialect_confirmed = detected.confirmed
    server.events_dialect_evidence = detected.evidence[:200]


def server_events_error_seen(*, server: McpServer, code: int, method: str | None = None) -> None:
    """Confirm (docs/events-client.md §8): a typed error from an ``events/*`` call settles an
    unconfirmed dialect, or flips it (recorded in the ledger). ``method``:
    the request it answered (None: a webhook envelope's error); an error on
    any other request proves nothing."""
    if not dialects.is_events_answer(method):
        return
    current = dialects.Detection(
        server.events_dialect_detected,
        server.events_dialect_confirmed,
        server.events_dialect_evidence,
    )
    settled = dialects.confirm(current, code)
    if settled == current:
        return
    with transaction.atomic():
        McpServer.objects.filter(pk=server.pk).update(
            events_dialect_detected=settled.dialect,
            events_dialect_confirmed=settled.confirmed,
            events_dialect_evidence=settled.evidence[:200],
        )
        if settled.dialect != current.dialect:
            audit_record(
                host_id=server.host_id,
                kind="server.dialect_changed",
                actor=SYSTEM,
                server_id=server.id,
                subject_type="server",
                subject_id=server.id,
                summary=(
                    f"Server {server.name} answered error {code}: it speaks the "
                    f"{settled.dialect} events dialect, not {current.dialect}"
                ),
                detail={"code": code, "from": current.dialect, "to": settled.dialect},
            )
    server.events_dialect_detected = settled.dialect
    server.events_dialect_confirmed = settled.confirmed
    server.events_dialect_evidence = settled.evidence
