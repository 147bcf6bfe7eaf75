"""Core Celery tasks: thin — load, claim, call a service."""

from datetime import datetime

from celery import shared_task
from django.conf import settings

from switchboard.actors import Actor
from switchboard.models import McpServer
from switchboard.services.audit_drain import audit_drains_run
from switchboard.services.audit_files import ledger_files_export
from switchboard.services.hosts import api_key_used
from switchboard.services.ledger_checkpoints import checkpoints_issue_due
from switchboard.services.ledger_retention import ledger_payloads_purge
from switchboard.services.server_sync import (
    server_claim_for_sync,
    server_sync,
    servers_due_for_sync,
)


@shared_task(name="switchboard.sync_due_servers")
def sync_due_servers() -> int:
    """Beat: fan out one sync task per server whose (re)sync or retry is due."""

    count = 0
    for server in servers_due_for_sync():
        if server_claim_for_sync(server_id=server.id):
            sync_server.delay(server.id)
            count += 1
    return count


@shared_task(name="switchboard.sync_server")
def sync_server(server_id: str) -> str:

    server = McpServer.objects.filter(
        pk=server_id, deleted_at__isnull=True, blocked_at__isnull=True
    ).first()
    if server is None or not server.url:
        return "gone"
    return server_sync(server=server, actor=Actor.system("periodic sync")).status


@shared_task(name="switchboard.api_key_used", ignore_result=True)
def record_api_key_use(key_id: str, at: str) -> None:
    api_key_used(key_id=key_id, at=datetime.fromisoformat(at))


@shared_task(name="switchboard.purge_ledger_payloads")
def purge_ledger_payloads() -> int:
    """Beat: erase ledger details past each host's retention, a batch a tick."""
    return ledger_payloads_purge()


@shared_task(name="switchboard.run_audit_drains")
def run_audit_drains() -> int:
    return audit_drains_run()


@shared_task(name="switchboard.export_ledger_files")
def export_ledger_files() -> int:
    """Beat: new ledger entries to AUDIT_EXPORT_DIR, when it is set."""
    return ledger_files_export()


@shared_task(name="switchboard.issue_ledger_checkpoints")
def issue_ledger_checkpoints() -> int:
    """Beat: sign a checkpoint of each host's ledger tree that grew."""
    if not settings.AUDIT_CHECKPOINT_BEAT:
        return 0
    return checkpoints_issue_due()
