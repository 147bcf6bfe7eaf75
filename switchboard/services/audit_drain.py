"""The audit drain (docs/host-integration.md §10): a host's ledger entries, POSTed to
its SIEM as they are written, in id order, in batches.

1. ``audit_drain_set`` (PUT) starts the drain after the host's newest entry
   (a changed drain keeps its place: nothing is skipped or sent twice
   because the URL or format changed) and returns a fresh ``whsec_``
   secret, shown once; ``audit_drain_delete`` ends it. Both are ledger
   entries (``audit.drain_created`` / ``_changed`` / ``_deleted``).
2. Beat runs ``audit_drains_run`` every BEAT_TICK: each drain that is due
   is claimed (a conditional UPDATE: one sender at a time), then sends
   batches of at most AUDIT_DRAIN_BATCH entries after ``last_delivered_id``
   until it has caught up, a POST fails or AUDIT_DRAIN_RUN_MAX seconds pass.
   Each batch is signed with Standard Webhooks, ``webhook-id`` =
   ``<first id>-<last id>`` (a SIEM deduplicates a batch sent again after
   an answer got lost); only a 2xx moves ``last_delivered_id``.
3. Each signed checkpoint of the host's transparency log travels the same
   way, as an event of the drain's format (``audit.checkpoint``: what a
   witness keeps, ``checkpoint_witness_payload``), in a POST of its own
   (``webhook-id`` = ``checkpoint-<first tree size>-<last tree size>``)
   sent once every entry it covers has been delivered, so the SIEM always
   holds the entries a checkpoint commits to before the checkpoint. The
   drain reads them from the checkpoints table, as it reads the entries
   (``last_checkpoint_size``): nothing rides on a signal that an outage
   could lose.
4. A failed POST sets the next attempt after the one backoff
   (``switchboard.backoff``: doubling from AUDIT_DRAIN_RETRY_BASE, capped at
   60 s, no jitter) and the drain's status to ``failing``; the next run
   resumes at ``last_delivered_id`` and ``last_checkpoint_size``, so after
   an outage every entry and checkpoint still arrives, once, in order.

Why id order is safe: a host's entries are appended under its chain head's
lock (``ledger_append``), so a later-committed entry of the host never has a
smaller id than one already committed: nothing appears behind the drain.
"""

from __future__ import annotations

import base64
import json
import logging
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from switchboard import metrics, telemetry
from switchboard.actors import Actor
from switchboard.backoff import backoff
from switchboard.crypto import decrypt_text, encrypt_text
from switchboard.errors import Invalid, NotFound
from switchboard.mcp.netguard import BlockedTarget, check_url, httpx_transport
from switchboard.models import (
    AuditCheckpoint,
    AuditDrain,
    AuditEntry,
    DrainFormat,
    DrainStatus,
    Host,
)
from switchboard.ocsf import ocsf_checkpoint_event, ocsf_event
from switchboard.outbound_urls import outbound_url_checked
from switchboard.services.audit import audit_record
from switchboard.services.ledger_checkpoints import checkpoint_witness_payload

log = logging.getLogger(__name__)

# The drain's retries wait at most this long (docs/configuration.md). No
# jitter: one drain per host, sent by one claimed run, so there is no crowd
# of retries to spread.
BACKOFF_MAX = 60.0


def _secret_new() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


@transaction.atomic
def audit_drain_set(*, host: Host, url: str, format: str, actor: Actor) -> tuple[AuditDrain, str]:
    """Create or change the host's drain; the new secret is returned once."""
    if format not in DrainFormat.values:
        raise Invalid("format must be jsonl or ocsf", field="format")
    url = outbound_url_checked(url)
    secret = _secret_new()
    drain = AuditDrain.objects.select_for_update().filter(host=host).first()
    created = drain is None
    if drain is None:
        newest = AuditEntry.objects.filter(host=host).aggregate(m=Max("id"))["m"] or 0
        signed = AuditCheckpoint.objects.filter(host=host).aggregate(m=Max("tree_size"))["m"]
        drain = AuditDrain(host=host, last_delivered_id=newest, last_checkpoint_size=signed or 0)
    before = {"url": drain.url, "format": drain.format}
    drain.url, drain.format = url, format
    drain.secret_encrypted = encrypt_text(secret)
    drain.status, drain.failures, drain.last_error = DrainStatus.ACTIVE, 0, ""
    drain.next_attempt_at = None
    drain.save()
    audit_record(
        host_id=host.id,
        kind="audit.drain_created" if created else "audit.drain_changed",
        actor=actor,
        subject_type="audit_drain",
        subject_id=host.id,
        summary=f"Audit drain {'set' if created else 'changed'}: {format} to {url}"[:500],
        detail={"url": url, "format": format, **({} if created else {"before": before})},
    )
    return drain, secret


@transaction.atomic
def audit_drain_delete(*, host: Host, actor: Actor) -> None:
    drain = AuditDrain.objects.select_for_update().filter(host=host).first()
    if drain is None:
        raise NotFound("this host has no audit drain", code="audit_drain_not_found")
    drain.delete()
    audit_record(
        host_id=host.id,
        kind="audit.drain_deleted",
        actor=actor,
        subject_type="audit_drain",
        subject_id=host.id,
        summary=f"Audit drain to {drain.url} removed"[:500],
        detail={
            "url": drain.url,
            "format": drain.format,
            "last_delivered_id": drain.last_delivered_id,
        },
    )


@dataclass(frozen=True)
class DrainState:
    url: str
    format: str
    status: str
    last_delivered_id: int
    lag_seconds: float
    last_error: str

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "url": self.url,
            "format": self.format,
            "status": self.status,
            "last_delivered_id": str(self.last_delivered_id),
            "lag_seconds": self.lag_seconds,
        }
        if self.last_error:
            out["last_error"] = self.last_error
        return out


def drain_lag_seconds(drain: AuditDrain, *, now: datetime | None = None) -> float:
    """The age of the oldest entry not yet delivered (0 when none)."""
    oldest = (
        AuditEntry.objects.filter(host_id=drain.host_id, id__gt=drain.last_delivered_id)
        .order_by("id")
        .values_list("at", flat=True)
        .first()
    )
    if oldest is None:
        return 0.0
    return round(max(((now or timezone.now()) - oldest).total_seconds(), 0.0), 3)


def audit_drain_state(*, host: Host) -> DrainState:
    drain = AuditDrain.objects.filter(host=host).first()
    if drain is None:
        raise NotFound("this host has no audit drain", code="audit_drain_not_found")
    return DrainState(
        url=drain.url,
        format=drain.format,
        status=drain.status,
        last_delivered_id=drain.last_delivered_id,
        lag_seconds=drain_lag_seconds(drain),
        last_error=drain.last_error,
    )


def audit_drain_summary(*, host: Host) -> DrainState | None:
    """For the staff audit page: the drain's state, or None without one."""
    try:
        return audit_drain_state(host=host)
    except NotFound:
        return None


# --- sending ----------------------------------------------------------------------


def _body(entries: list[AuditEntry], fmt: str) -> str:
    """JSONL: one object per line (one entry, or one OCSF event)."""
    if fmt == DrainFormat.OCSF:
        lines = [ocsf_event(e) for e in entries]
    else:
        lines = [
            {
                "id": str(e.id),
                "at": e.at.isoformat(),
                "kind": e.kind,
                "actor": {"kind": e.actor_kind, "id": e.actor_id, "label": e.actor_label},
                "user": e.user_external_id or None,
                "server": e.server_id or None,
                "subject": {"type": e.subject_type, "id": e.subject_id} if e.subject_type else None,
                "summary": e.summary,
                "detail": e.detail,
                "content_hash": e.content_hash,
                "prev_hash": e.prev_hash,
                "chain_hash": e.chain_hash,
            }
            for e in entries
        ]
    return "".join(json.dumps(line, separators=(",", ":"), default=str) + "\n" for line in lines)


def _checkpoints_body(checkpoints: list[AuditCheckpoint], fmt: str) -> str:
    """JSONL: one object per checkpoint (``kind`` ``audit.checkpoint``), or
    one OCSF event."""
    if fmt == DrainFormat.OCSF:
        lines = [ocsf_checkpoint_event(c) for c in checkpoints]
    else:
        lines = [
            {
                "kind": "audit.checkpoint",
                "at": c.issued_at.isoformat(),
                **checkpoint_witness_payload(c),
                "last_entry_id": str(c.last_entry_id),
            }
            for c in checkpoints
        ]
    return "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)


def _checkpoints_owed(drain: AuditDrain) -> list[AuditCheckpoint]:
    """Checkpoints the SIEM lacks whose entries it already has, oldest first."""
    return list(
        AuditCheckpoint.objects.filter(
            host_id=drain.host_id,
            tree_size__gt=drain.last_checkpoint_size,
            last_entry_id__lte=drain.last_delivered_id,
        ).order_by("tree_size")[: settings.AUDIT_DRAIN_BATCH]
    )


def _claim(host_id: str, now: datetime) -> AuditDrain | None:
    lease = now + timedelta(seconds=settings.AUDIT_DRAIN_TIMEOUT + settings.AUDIT_DRAIN_RUN_MAX)
    taken = (
        AuditDrain.objects.filter(host_id=host_id)
        .filter(Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now))
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .update(claimed_until=lease)
    )
    return AuditDrain.objects.filter(host_id=host_id).first() if taken else None


def _post(drain: AuditDrain, body: str, webhook_id: str) -> str:
    """'' on a 2xx, else what went wrong (for ``last_error``)."""
    moment = datetime.now(UTC)
    headers = {
        "webhook-id": webhook_id,
        "webhook-timestamp": str(int(moment.timestamp())),
        "webhook-signature": Webhook(decrypt_text(drain.secret_encrypted)).sign(
            webhook_id, moment, body
        ),
        "content-type": "application/x-ndjson",
        "user-agent": "Switchboard/1 audit-drain",
    }
    telemetry.inject_headers(headers)
    try:
        target = check_url(drain.url)
    except BlockedTarget as blocked:
        return f"blocked: {blocked.message}"[:300]
    try:
        with httpx.Client(transport=httpx_transport(target), trust_env=False) as client:
            response = client.post(
                drain.url,
                content=body.encode(),
                headers=headers,
                timeout=settings.AUDIT_DRAIN_TIMEOUT,
            )
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__}: {exc}"[:300]
    if 200 <= response.status_code < 300:
        return ""
    return f"HTTP {response.status_code}"


def audit_drain_run(*, host_id: str) -> int:
    """Send what the host's drain owes, batch after batch (checkpoints as
    soon as the entries they cover are out); the number of entries
    delivered. Does nothing if the drain is not due or is held."""
    drain = _claim(host_id, timezone.now())
    if drain is None:
        return 0
    delivered = 0
    started = time.monotonic()
    try:
        while time.monotonic() - started < settings.AUDIT_DRAIN_RUN_MAX:
            checkpoints = _checkpoints_owed(drain)
            if checkpoints:
                webhook_id = f"checkpoint-{checkpoints[0].tree_size}-{checkpoints[-1].tree_size}"
                if not _sent(drain, _checkpoints_body(checkpoints, drain.format), webhook_id):
                    break
                drain.last_checkpoint_size = checkpoints[-1].tree_size
                _moved_on(drain, last_checkpoint_size=drain.last_checkpoint_size)
                continue
            entries = list(
                AuditEntry.objects.filter(host_id=host_id, id__gt=drain.last_delivered_id).order_by(
                    "id"
                )[: settings.AUDIT_DRAIN_BATCH]
            )
            if not entries:
                break
            webhook_id = f"{entries[0].id}-{entries[-1].id}"
            if not _sent(drain, _body(entries, drain.format), webhook_id):
                break
            drain.last_delivered_id = entries[-1].id
            delivered += len(entries)
            _moved_on(drain, last_delivered_id=drain.last_delivered_id)
    finally:
        AuditDrain.objects.filter(host_id=host_id).update(claimed_until=None)
    return delivered


def _sent(drain: AuditDrain, body: str, webhook_id: str) -> bool:
    """POST one batch; on a failure, say so on the drain and set its next
    attempt after the backoff."""
    error = _post(drain, body, webhook_id)
    if not error:
        metrics.audit_drain_batches.labels(outcome="delivered").inc()
        return True
    metrics.audit_drain_batches.labels(outcome="failed").inc()
    drain.failures += 1
    now = timezone.now()
    AuditDrain.objects.filter(host_id=drain.host_id).update(
        status=DrainStatus.FAILING,
        failures=drain.failures,
        last_error=error,
        next_attempt_at=now
        + timedelta(
            seconds=backoff(drain.failures, base=settings.AUDIT_DRAIN_RETRY_BASE, cap=BACKOFF_MAX)
        ),
        updated_at=now,
    )
    log.warning("audit drain of %s: batch %s failed: %s", drain.host_id, webhook_id, error)
    return False


def _moved_on(drain: AuditDrain, **position: int) -> None:
    """A batch arrived: the drain's new position, and it is healthy again.
    Only the sender holding the claim moves the drain on."""
    drain.failures = 0
    now = timezone.now()
    AuditDrain.objects.filter(host_id=drain.host_id).update(
        **position,
        last_delivered_at=now,
        status=DrainStatus.ACTIVE,
        failures=0,
        last_error="",
        next_attempt_at=None,
        updated_at=now,
    )


def audit_drains_run() -> int:
    """Beat: run every drain that is due."""
    now = timezone.now()
    due = AuditDrain.objects.filter(
        Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now)
    ).values_list("host_id", flat=True)
    return sum(audit_drain_run(host_id=host_id) for host_id in list(due))
