"""The scheduled ledger export for a SIEM: every tick, each host's new
entries go to ``AUDIT_EXPORT_DIR/<host id>/<first id>-<last id>.jsonl``
(details included: the directory is for the security team), written to a
temporary name and renamed, so a collector never reads half a file. A file
is named by its id range: a crash after the write and before the cursor
moved writes the same file again, never a second copy."""

from __future__ import annotations

import json
import os
from pathlib import Path

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from switchboard.models import AuditEntry, AuditExportCursor, Host
from switchboard.services.audit_export import entry_as_dict


def ledger_files_export() -> int:
    """Write each host's entries since the last file; returns how many."""
    if not settings.AUDIT_EXPORT_DIR:
        return 0
    written = 0
    for host in Host.objects.all():
        written += _export_host(host, Path(settings.AUDIT_EXPORT_DIR))
    return written


@transaction.atomic
def _export_host(host: Host, root: Path) -> int:
    cursor, _ = AuditExportCursor.objects.get_or_create(host=host)
    cursor = AuditExportCursor.objects.select_for_update(no_key=True).get(pk=cursor.pk)
    entries = list(
        AuditEntry.objects.filter(host=host, id__gt=cursor.last_id).order_by("id")[
            : settings.AUDIT_EXPORT_FILE_MAX
        ]
    )
    if not entries:
        return 0
    folder = root / host.id
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"{entries[0].id:012d}-{entries[-1].id:012d}.jsonl"
    partial = final.with_suffix(".jsonl.partial")
    with partial.open("w", encoding="utf-8") as out:
        for entry in entries:
            out.write(json.dumps(entry_as_dict(entry), cls=DjangoJSONEncoder, sort_keys=True))
            out.write("\n")
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, final)
    cursor.last_id = entries[-1].id
    cursor.exported_at = timezone.now()
    cursor.save(update_fields=["last_id", "exported_at"])
    return len(entries)
