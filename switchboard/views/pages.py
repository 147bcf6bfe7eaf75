"""The signed-in user's own pages."""

from django.shortcuts import render
from django.views.decorators.http import require_GET

from switchboard.api.pagination import paginate
from switchboard.errors import DomainError
from switchboard.selectors import audit_entries_for_host, audit_entries_for_user
from switchboard.views.access import login_required_page


@require_GET
@login_required_page
def activity(request):
    user = request.user
    entries = (
        audit_entries_for_host(host=user.host)
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
