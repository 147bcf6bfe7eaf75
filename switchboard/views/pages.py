"""The signed-in user's own pages."""

from django.shortcuts import render
from django.views.decorators.http import require_GET

from switchboard.selectors import audit_entries_for_host, audit_entries_for_user
from switchboard.views.access import login_required_page
from switchboard.views.paging import page_of


@require_GET
@login_required_page
def activity(request):
    user = request.user
    entries = (
        audit_entries_for_host(host=user.host)
        if user.is_host_staff
        else audit_entries_for_user(user=user)
    )
    rows, next_cursor = page_of(request, entries, order=("id",))
    context = {"nav": "activity", "entries": rows, "next_cursor": next_cursor}
    template = "activity/feed.html#page" if request.htmx else "activity/feed.html"
    return render(request, template, context)
