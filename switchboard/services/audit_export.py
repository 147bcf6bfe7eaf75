"""Streamed CSV/JSONL export of the ledger (constant memory at any size)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder

from switchboard.models import AuditEntry
from switchboard.services.ledger_chain import content_payload

CSV_COLUMNS = [
    "id",
    "at",
    "kind",
    "actor_kind",
    "actor_id",
    "actor_label",
    "user",
    "server",
    "subject_type",
    "subject_id",
    "summary",
    "detail",
    "content_hash",
    "leaf_index",
]


def entry_as_dict(entry: AuditEntry, *, details: bool = True) -> dict:
    return {
        "id": str(entry.id),
        "at": entry.at,
        "kind": entry.kind,
        "actor": entry.actor,
        "user": entry.user_external_id or None,
        "server": entry.server_id or None,
        "subject": {"type": entry.subject_type, "id": entry.subject_id}
        if entry.subject_type
        else None,
        "summary": entry.summary,
        # Left out for readers who may not see payloads (staff admins).
        "detail": entry.detail if details else None,
        # The transparency log (docs/transparency.md): the entry's leaf, its
        # place in the host's tree, and the fields the leaf is the hash of.
        "content_hash": entry.content_hash,
        "leaf_index": entry.leaf_index,
        "hashed": content_payload(entry),
    }


def _chunks(queryset) -> Iterator[AuditEntry]:
    """Walk newest-first by id in fixed chunks, so no huge query or cursor is held."""
    last_id = None
    while True:
        page = queryset.order_by("-id")
        if last_id is not None:
            page = page.filter(id__lt=last_id)
        rows = list(page[: settings.AUDIT_EXPORT_CHUNK])
        if not rows:
            return
        yield from rows
        last_id = rows[-1].id


def _csv_safe(value: str) -> str:
    # Spreadsheet apps execute cells starting with these; summaries may quote user text.
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value


def export_csv(queryset, *, details: bool = True) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for entry in _chunks(queryset):
        writer.writerow(
            [
                entry.id,
                entry.at.isoformat(),
                entry.kind,
                entry.actor_kind,
                entry.actor_id,
                _csv_safe(entry.actor_label),
                entry.user_external_id,
                entry.server_id,
                entry.subject_type,
                entry.subject_id,
                _csv_safe(entry.summary),
                json.dumps(entry.detail, sort_keys=True, cls=DjangoJSONEncoder) if details else "",
                entry.content_hash,
                entry.leaf_index,
            ]
        )
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    yield buffer.getvalue()


def export_jsonl(queryset, *, details: bool = True) -> Iterator[str]:
    for entry in _chunks(queryset):
        row = entry_as_dict(entry, details=details)
        yield json.dumps(row, cls=DjangoJSONEncoder, sort_keys=True) + "\n"
