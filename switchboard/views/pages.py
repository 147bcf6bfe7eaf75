"""The signed-in user's own pages."""

from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from consent.selectors import consent_requests_pending_for_user, grants_of_user
from switchboard.api.pagination import paginate
from switchboard.errors import DomainError
from switchboard.selectors import audit_entries_for_host, audit_entries_for_user
from switchboard.views.access import login_required_page


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
@login_required_page
def activity(request):
    user = request.user
    entries = (
        audit_entries_for_host(host=user.host_id)
        if user.is_host_staff
        else audit_entries_for_user(user=user)
    )
    try:
        rows, next_cursor = paginate(
            entries, cursor=request.GET.get("cursor"), limit=50, order=("id",)
        )
    except DomainError:
        rows, next_cursor = paginate(entries, cursor=None, limit=50, order=("id",))
    context = {"nav": "activity", "entries": rows, "next_cursor": next_cursor}
    template = "activity/feed.html#page" if request.htmx else "activity/feed.html"
    return render(request, template, context)
