"""The audit ledger over the API (contract: Audit)."""

from __future__ import annotations

from typing import Literal

from django.http import StreamingHttpResponse
from ninja import Query, Router, Schema

from switchboard.api.pagination import paginate
from switchboard.api.params import PageLimit, Timestamp
from switchboard.api.schemas import AuditPage, ErrorOut
from switchboard.errors import Invalid
from switchboard.selectors import audit_entries_for_host, user_id_to_filter_by
from switchboard.services.audit import audit_access_record
from switchboard.services.audit_drain import audit_drain_delete, audit_drain_set, audit_drain_state
from switchboard.services.audit_export import entry_as_dict, export_csv, export_jsonl
from switchboard.services.ledger_chain import ledger_verify

router = Router(tags=["audit"])


class AuditFilter(Schema):
    kind: str | None = None
    user: str | None = None
    server: str | None = None
    since: Timestamp | None = None
    until: Timestamp | None = None


def _filtered(request, filters: AuditFilter):
    if filters.since and filters.until and filters.since >= filters.until:
        raise Invalid("since must be before until", field="since")
    return audit_entries_for_host(
        host=request.host,
        kind=filters.kind,
        user_id=user_id_to_filter_by(host=request.host, external_id=filters.user),
        server_id=filters.server,
        since=filters.since,
        until=filters.until,
    )


@router.get("/audit", response={200: AuditPage, 400: ErrorOut, 401: ErrorOut, 422: ErrorOut})
def list_audit(
    request,
    filters: Query[AuditFilter],
    cursor: str | None = None,
    limit: PageLimit | None = None,
):
    rows, next_cursor = paginate(
        _filtered(request, filters), cursor=cursor, limit=limit, order=("id",)
    )
    return {"items": [entry_as_dict(row) for row in rows], "next_cursor": next_cursor}


@router.get("/audit/export", response={200: None, 400: ErrorOut, 401: ErrorOut, 422: ErrorOut})
def export_audit(request, filters: Query[AuditFilter], format: Literal["csv", "jsonl"] = "jsonl"):
    entries = _filtered(request, filters)
    audit_access_record(
        host_id=request.host.id,
        actor=request.actor,
        kind="audit.exported",
        filters={**filters.dict(), "format": format},
        what=f"exported the audit ledger ({format})",
    )
    if format == "csv":
        response = StreamingHttpResponse(
            export_csv(entries), content_type="text/csv; charset=utf-8"
        )
    else:
        response = StreamingHttpResponse(export_jsonl(entries), content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="switchboard-audit.{format}"'
    return response


class DrainIn(Schema):
    url: str
    format: Literal["jsonl", "ocsf"]


class DrainCreatedOut(Schema):
    url: str
    format: str
    secret: str


class DrainOut(Schema):
    url: str
    format: str
    status: str
    last_delivered_id: str
    lag_seconds: float
    last_error: str | None = None


@router.put(
    "/audit/drain", response={200: DrainCreatedOut, 400: ErrorOut, 401: ErrorOut, 422: ErrorOut}
)
def put_audit_drain(request, payload: DrainIn):
    """Send this host's ledger entries written from now on to ``url`` (a
    SIEM), in batches signed with the returned secret (shown once)."""
    drain, secret = audit_drain_set(
        host=request.host, url=payload.url, format=payload.format, actor=request.actor
    )
    return {"url": drain.url, "format": drain.format, "secret": secret}


@router.get(
    "/audit/drain",
    response={200: DrainOut, 400: ErrorOut, 401: ErrorOut, 404: ErrorOut},
    exclude_none=True,
)
def get_audit_drain(request):
    """The drain's status, how far it has delivered and its lag."""
    return audit_drain_state(host=request.host).as_dict()


@router.delete("/audit/drain", response={204: None, 400: ErrorOut, 401: ErrorOut, 404: ErrorOut})
def delete_audit_drain(request):
    audit_drain_delete(host=request.host, actor=request.actor)
    return 204, None


class BrokenOut(Schema):
    id: int | None = None
    reason: str
    # Set when the transparency log broke: the leaf, and the checkpoint the
    # ledger no longer gives (docs/transparency.md).
    leaf_index: int | None = None
    checkpoint: int | None = None


class VerifyOut(Schema):
    ok: bool
    checked: int
    first_broken: BrokenOut | None = None


@router.get(
    "/audit/verify",
    # 400: text with a NUL character, refused for every parameter (api/root.py).
    response={200: VerifyOut, 400: ErrorOut, 401: ErrorOut, 422: ErrorOut},
    exclude_none=True,
)
def verify_audit(request, since: Timestamp | None = None):
    """Check this host's ledger hash chain (from ``since``, default the
    start): ``ok``, how many entries held, and the first that does not."""
    return ledger_verify(host_id=request.host.id, since=since).as_dict()
