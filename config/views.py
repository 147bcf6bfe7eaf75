"""The start pages: they gather what several apps know (consent requests and
grants beside the ledger), so they live on the top floor."""

from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from consent.selectors import (
    consent_requests_pending_for_user,
    grant_counts_for_host,
    grants_of_user,
)
from switchboard.selectors import (
    api_keys_for_host,
    audit_entries_for_host,
    audit_entries_for_user,
    end_users_for_host,
    servers_for_host,
)
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
            "users": end_users_for_host(host=host).count(),
            "servers": servers_for_host(host=host).count(),
            **{f"{name}_grants": n for name, n in grant_counts_for_host(host=host).items()},
        },
        "keys": api_keys_for_host(host=host),
        "recent": list(audit_entries_for_host(host=host).order_by("-id")[:15]),
    }
    return render(request, "staff/overview.html", context)
