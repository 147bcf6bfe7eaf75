"""Reads of access requests, scoped to the caller: the host (API, staff
queue) or the signed-in user (their own requests, the servers they may ask
for)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from consent.models import AccessRequest, AccessRequestStatus
from consent.selectors import host_policy_get
from switchboard.errors import Invalid, NotFound
from switchboard.models import Host, McpServer, User


def access_requests_for_host(*, host: Host, status: str | None = None) -> QuerySet[AccessRequest]:
    """The host's requests, newest first; ``status`` one of pending,
    approved, denied (else ``Invalid`` naming it)."""
    host_id = host.id
    rows = AccessRequest.objects.filter(host_id=host_id)
    if status:
        if status not in AccessRequestStatus.values:
            raise Invalid(
                f"status must be one of {', '.join(AccessRequestStatus.values)}", field="status"
            )
        rows = rows.filter(status=status)
    return rows.select_related("user", "server").order_by("-created_at", "-id")


def access_request_get_for_host(*, host: Host, request_id: str) -> AccessRequest:
    host_id = host.id
    found = (
        AccessRequest.objects.filter(host_id=host_id, pk=request_id)
        .select_related("user", "server")
        .first()
    )
    if found is None:
        raise NotFound(f"no access request {request_id!r} for this host", field="id")
    return found


def access_requests_of_user(*, user: User) -> QuerySet[AccessRequest]:
    return (
        AccessRequest.objects.filter(user=user)
        .select_related("server", "consent_request")
        .order_by("-created_at", "-id")
    )


@dataclass
class Askable:
    """A server the user may ask for, and their request still waiting, if any."""

    server: McpServer
    pending: AccessRequest | None


def servers_to_request(*, user: User) -> list[Askable]:
    """The host's registered servers its policy does not allow yet."""
    host_id = user.host_id or ""
    policy = host_policy_get(host_id=host_id)
    servers = McpServer.objects.filter(host_id=host_id, deleted_at__isnull=True).order_by(
        "name", "id"
    )
    waiting = {
        r.server_id: r
        for r in AccessRequest.objects.filter(user=user, status=AccessRequestStatus.PENDING)
    }
    return [
        Askable(server=s, pending=waiting.get(s.id))
        for s in servers
        if not policy.allows_server(s.id)
    ]


def server_to_request(*, user: User, server_id: str) -> McpServer:
    """One server the user may ask for (404 for another host's, or a removed one)."""
    found = McpServer.objects.filter(
        host_id=user.host_id, pk=server_id, deleted_at__isnull=True
    ).first()
    if found is None:
        raise NotFound("no such server", field="server")
    return found
