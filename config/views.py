"""The start pages: they gather what several apps know (consent requests and
grants beside the ledger), so they live on the top floor."""

from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from consent.models import Grant
from consent.selectors import consent_requests_pending_for_user, grants_of_user
from switchboard.models import ApiKey, McpServer, Role, User
from switchboard.selectors import audit_entries_for_host, audit_entries_for_user
from switchboard.views.access import staff_required


@require_GET
def home(request):
    if not request.user.is_authenticated:
        return render(request, "home/anonymous.html")
    if request.user.is_host_staff:
        return redirect("staff-overview")
    if not request.user.host_id:
        return redirect("admin:index")
    context = {
        "nav": "home",
        "asking": consent_requests_pending_for_user(user=request.user).select_related("server")[
            :20
        ],
        "grants": grants_of_user(user=request.user)[:50],
        "recent": list(audit_entries_for_user(user=request.user).order_by("-id")[:10]),
    }
    return render(request, "home/user.html", context)


@require_GET
@staff_required
def overview(request):
    host = request.user.host
    context = {
        "nav": "staff",
        "host": host,
        "counts": {
            "users": User.objects.filter(
                host=host, role=Role.END_USER, deleted_at__isnull=True
            ).count(),
            "servers": McpServer.objects.filter(host=host, deleted_at__isnull=True).count(),
            "active_grants": Grant.objects.live().filter(host=host).count(),
            "pending_grants": Grant.objects.filter(host=host, status="pending").count(),
        },
        "keys": ApiKey.objects.filter(host=host),
        "recent": list(audit_entries_for_host(host=host).order_by("-id")[:15]),
    }
    return render(request, "staff/overview.html", context)
