"""Console pages of the hooks app: servers' hooks with the user's controls,
and lifecycle timelines (the user's own; staff: per session, per user, host)."""

from __future__ import annotations

from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from consent.selectors import grant_is_live
from hooks.selectors import (
    server_get_for_user,
    server_hook_rows,
    server_preference,
    servers_declaring_hooks,
    session_get_by_pk_for_host,
    sessions_for_host,
    timeline_for_host,
    timeline_for_session,
    timeline_for_user,
)
from hooks.services import hook_preference_set
from switchboard.actors import Actor
from switchboard.errors import DomainError
from switchboard.selectors import end_user_get_for_host, servers_for_host
from switchboard.views.access import login_required_page, staff_required
from switchboard.views.paging import page_of

TIMELINE_ORDER = ("created_at", "pk")
SESSION_ORDER = ("updated_at", "pk")


def _timeline(request, *, events, heading, timeline_id, intro="", **extra):
    rows, next_cursor = page_of(request, events, order=TIMELINE_ORDER)
    context = {
        "nav": "hooks",
        "heading": heading,
        "intro": intro,
        "events": rows,
        "next_cursor": next_cursor,
        "timeline_id": timeline_id,
        "hooks_current": "timeline",
        **extra,
    }
    template = "hooks/timeline.html#page" if request.htmx else "hooks/timeline.html"
    return render(request, template, context)


@require_GET
@login_required_page
def home(request):
    """Servers of the host that declare hooks (with the user's approvals)."""
    rows = servers_declaring_hooks(user=request.user)
    return render(request, "hooks/home.html", {"nav": "hooks", "servers": rows})


@require_GET
@login_required_page
def server_hooks(request, server_id: str):
    user = request.user
    server = server_get_for_user(user=user, server_id=server_id)
    viewer_is_user = user.is_end_user
    grant = None
    if viewer_is_user:
        grant = grant_is_live(user=user, server_id=server.id, scope="hooks")
    context = {
        "nav": "hooks",
        "server": server,
        "rows": server_hook_rows(server=server, user=user if viewer_is_user else None),
        "viewer_is_user": viewer_is_user,
        "grant": grant,
        "server_pref": server_preference(user=user, server=server) if viewer_is_user else None,
    }
    return render(request, "hooks/server.html", context)


@require_POST
@login_required_page
def preference(request, server_id: str):
    """Mute/unmute or cap one hook (or, with an empty hook_id, all of them)."""
    user = request.user
    if not user.is_end_user:
        return render(request, "hooks/not_found.html", {"nav": "hooks"}, status=403)
    server = server_get_for_user(user=user, server_id=server_id)
    hook_id = request.POST.get("hook_id", "")
    action = request.POST.get("action")
    changes = {
        "mute": {"muted": True},
        "unmute": {"muted": False},
        "cap": {"max_priority": request.POST.get("max_priority", "")},
    }.get(action)
    if changes is None:
        return render(request, "hooks/not_found.html", {"nav": "hooks"}, status=400)
    try:
        hook_preference_set(
            user=user, server=server, hook_id=hook_id, actor=Actor.for_user(user), **changes
        )
    except DomainError as error:
        return render(
            request, "hooks/not_found.html", {"nav": "hooks", "message": error.message}, status=422
        )
    if not request.htmx:
        return redirect("hooks-server", server_id=server.id)  # post/redirect/get
    if hook_id:
        row = next(
            r
            for r in server_hook_rows(server=server, user=user)
            if r.declaration.hook_id == hook_id
        )
        return render(request, "hooks/hook_row.html", {"row": row, "viewer_is_user": True})
    context = {"server": server, "server_pref": server_preference(user=user, server=server)}
    return render(request, "hooks/server.html#server-controls", context)


@require_GET
@login_required_page
def timeline(request):
    """End users: their own lifecycle events. Staff: the whole host's."""
    user = request.user
    if user.is_host_staff:
        return _timeline(
            request,
            events=timeline_for_host(host=user.host),
            heading="Lifecycle timeline",
            intro=f"Every lifecycle event reported for {user.host.name}.",
            timeline_id="timeline-host",
            show_user=True,
            show_session=True,
        )
    return _timeline(
        request,
        events=timeline_for_user(user=user),
        heading="Your lifecycle timeline",
        intro="What servers' hooks added to your assistant's context, and when.",
        timeline_id=f"timeline-u-{user.id}",
    )


@require_GET
@staff_required
def staff_sessions(request):
    rows, next_cursor = page_of(
        request, sessions_for_host(host=request.user.host), order=SESSION_ORDER
    )
    return render(
        request,
        "hooks/sessions.html",
        {"nav": "hooks", "sessions": rows, "next_cursor": next_cursor},
    )


@require_GET
@staff_required
def staff_session(request, session_pk: str):
    session = session_get_by_pk_for_host(host=request.user.host, pk=session_pk)
    session_servers = list(servers_for_host(host=session.host).filter(pk__in=session.server_ids))
    return _timeline(
        request,
        events=timeline_for_session(session=session),
        heading=f"Session {session.session_id[:60]}",
        timeline_id=f"timeline-s-{session.id}",
        session=session,
        session_servers=session_servers,
        show_user=True,
    )


@require_GET
@staff_required
def staff_user(request, user_id: str):
    subject = end_user_get_for_host(host=request.user.host, user_id=user_id)
    return _timeline(
        request,
        events=timeline_for_user(user=subject),
        heading=f"Lifecycle timeline of {subject.label}",
        timeline_id=f"timeline-u-{subject.id}",
        show_session=True,
    )
