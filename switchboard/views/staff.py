"""Staff area: one host's admins and auditors."""

from django.http import StreamingHttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from switchboard.actors import Actor
from switchboard.forms import AuditFilterForm
from switchboard.models import Role
from switchboard.selectors import audit_entries_for_host, end_users_for_host, user_id_to_filter_by
from switchboard.services.audit import audit_access_record
from switchboard.services.audit_drain import audit_drain_summary
from switchboard.services.audit_export import export_csv, export_jsonl
from switchboard.services.ledger_checkpoints import latest_checkpoint
from switchboard.services.ledger_witness import checkpoint_last_received
from switchboard.views.access import staff_required
from switchboard.views.paging import page_of

USER_ORDER = ("date_joined", "pk")


@require_GET
@staff_required
def users(request):
    rows = end_users_for_host(host=request.user.host)
    page, next_cursor = page_of(request, rows, order=USER_ORDER)
    return render(
        request, "staff/users.html", {"nav": "staff", "users": page, "next_cursor": next_cursor}
    )


def _audit_queryset(request, form: AuditFilterForm):
    data = form.cleaned_data if form.is_valid() else {}
    return audit_entries_for_host(
        host=request.user.host,
        kind=data.get("kind") or None,
        user_id=user_id_to_filter_by(host=request.user.host, external_id=data.get("user") or None),
        server_id=data.get("server") or None,
        since=data.get("since"),
        until=data.get("until"),
        subscription_id=data.get("subscription") or None,
        text=data.get("q") or None,
    )


@require_GET
@staff_required
def audit(request):
    form = AuditFilterForm(request.GET or None)
    entries = _audit_queryset(request, form)
    rows, next_cursor = page_of(request, entries, order=("id",))
    query = request.GET.copy()
    query.pop("cursor", None)
    context = {
        "nav": "audit",
        "form": form,
        "entries": rows,
        "next_cursor": next_cursor,
        "filter_query": query.urlencode(),
        # Details may carry payloads: auditors read them, admins do not.
        "show_details": request.user.role == Role.AUDITOR,
        "checkpoint": latest_checkpoint(request.user.host_id),
        "checkpoint_received_at": checkpoint_last_received(request.user.host_id),
    }
    # A page's own live re-reads (static/js/live.js) are not a person reading.
    if request.user.role == Role.AUDITOR and "X-Live-Refresh" not in request.headers:
        audit_access_record(
            host_id=request.user.host.id,
            actor=Actor.for_user(request.user),
            kind="audit.read",
            filters=request.GET.dict(),
            what="read the audit ledger",
        )
    context["drain"] = audit_drain_summary(host=request.user.host)
    template = "staff/audit.html#results" if request.htmx else "staff/audit.html"
    return render(request, template, context)


@require_GET
@staff_required
def audit_export(request, fmt: str):
    form = AuditFilterForm(request.GET or None)
    entries = _audit_queryset(request, form)
    details = request.user.role == Role.AUDITOR  # as on the page
    audit_access_record(
        host_id=request.user.host.id,
        actor=Actor.for_user(request.user),
        kind="audit.exported",
        filters={**request.GET.dict(), "format": fmt},
        what=f"exported the audit ledger ({fmt})",
    )
    if fmt == "csv":
        response = StreamingHttpResponse(
            export_csv(entries, details=details), content_type="text/csv; charset=utf-8"
        )
    else:
        response = StreamingHttpResponse(
            export_jsonl(entries, details=details), content_type="application/x-ndjson"
        )
    response["Content-Disposition"] = f'attachment; filename="switchboard-audit.{fmt}"'
    return response
