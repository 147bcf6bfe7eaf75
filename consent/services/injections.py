"""Injection records kept outside the fan-out: what hosts report, retention,
and erasing a user's kept content."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from consent.models import (
    ConsentRequest,
    Injection,
    InjectionOutcome,
    InjectionSource,
    RequestStatus,
    Scope,
)
from consent.selectors import grant_is_live, host_policy_get
from consent.services.conversation import injections_push
from consent.services.conversation_plan import TooLarge, _check_id
from consent.services.grants import grants_revoke_all
from switchboard.actors import Actor
from switchboard.errors import Forbidden
from switchboard.models import Host, McpServer, User
from switchboard.retention import retention_purge
from switchboard.services.audit import audit_record

PURGE_BATCH = 1000


@transaction.atomic
def injection_report(
    *,
    host: Host,
    user: User,
    server: McpServer,
    conversation_id: str,
    message_id: str,
    context: str,
    actor: Actor,
    latency_ms: int | None = None,
) -> Injection:
    """A host called a server itself (e.g. over stdio) and injected its
    context: record it, but only if a live grant allowed it (403 otherwise)."""

    _check_id(conversation_id, "conversation_id")
    _check_id(message_id, "message_id")
    if len(context) > settings.CONVERSATION_REPLY_MAX_CHARS:
        raise TooLarge(
            f"context is longer than {settings.CONVERSATION_REPLY_MAX_CHARS} characters",
            field="context",
        )
    if not host_policy_get(host_id=host.id).allows_server(server.id):
        raise Forbidden(
            "this host's policy does not allow this server", field="server", code="denied_by_policy"
        )
    grant = grant_is_live(user=user, server_id=server.id, scope=Scope.CONVERSATION_READ)
    if grant is None:
        raise Forbidden(
            f"{user.external_id} has not allowed this server to read their conversation",
            field="server",
            code="no_consent",
        )
    injection = Injection.objects.create(
        created_at=timezone.now(),
        host=host,
        user=user,
        server=server,
        grant=grant,
        conversation_id=conversation_id,
        message_id=message_id,
        source=InjectionSource.HOST,
        outcome=InjectionOutcome.OK,
        latency_ms=max(0, latency_ms or 0),
        chars=len(context),
        text=context,
    )
    audit_record(
        host_id=host.id,
        kind="conversation.injection_reported",
        actor=actor,
        user=user,
        server_id=server.id,
        subject_type="injection",
        subject_id=injection.id,
        summary=f"The host injected {len(context)} characters from {server.name}",
        detail={
            "conversation_id": conversation_id,
            "message_id": message_id,
            "chars": len(context),
            "grant_id": grant.id,
        },
    )
    injections_push(user=user)
    return injection


def injections_purge_due() -> int:
    """Beat: erase injected text older than the host's retention for
    injected text (``switchboard.retention``; rows stay), one batch per host,
    each batch recorded in the ledger."""
    return retention_purge(
        "injected_text",
        due=lambda host, cutoff: (
            Injection.objects.filter(host=host, purged_at__isnull=True, created_at__lt=cutoff)
            .order_by("created_at")
            .values_list("pk", flat=True)
        ),
        erase=lambda ids: Injection.objects.filter(pk__in=ids, purged_at__isnull=True).update(
            text="", structured=None, purged_at=timezone.now()
        ),
        batch=PURGE_BATCH,
    )


@transaction.atomic
def user_consent_erase(*, user: User, actor: Actor) -> dict[str, int]:
    """Everything consent keeps for a user who is being deleted: revoke every
    grant, close open requests, erase the injected text. The ledger gets a
    tombstone with counts, never content."""
    # Requests first: revoking their grants would otherwise settle them as "denied".
    closed = ConsentRequest.objects.filter(user=user, status=RequestStatus.PENDING).update(
        status=RequestStatus.EXPIRED, decided_at=timezone.now()
    )
    revoked = grants_revoke_all(user=user, actor=actor)
    erased = Injection.objects.filter(user=user, purged_at__isnull=True).update(
        text="", structured=None, purged_at=timezone.now()
    )
    audit_record(
        host_id=user.tenant_id,
        kind="consent.user_erased",
        actor=actor,
        user=user,
        subject_type="user",
        subject_id=user.id,
        summary="Consents revoked and injected text erased for a deleted user",
        detail={"grants_revoked": revoked, "requests_closed": closed, "injections_erased": erased},
    )
    return {"grants_revoked": revoked, "requests_closed": closed, "injections_erased": erased}
