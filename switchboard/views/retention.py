"""Staff: how long this host keeps each kind of content (the form sits on
the policy page; retention belongs to the core, every app purges by it)."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from switchboard.actors import Actor
from switchboard.errors import Invalid
from switchboard.retention import KINDS, retention_default
from switchboard.services.retention import host_retention_set
from switchboard.views.access import admin_required


def retention_rows(host) -> list[dict]:
    """For the policy page: each kind with the host's days and the default."""
    own = host.retention_days or {}
    return [
        {
            "kind": kind,
            "words": words,
            "days": own.get(kind),
            "default_days": retention_default(kind).days,
        }
        for kind, (_, words) in KINDS.items()
    ]


@require_POST
@admin_required
def retention_save(request):
    days: dict[str, int | None] = {}
    for kind, (_, words) in KINDS.items():
        raw = request.POST.get(kind, "").strip()
        try:
            days[kind] = int(raw) if raw else None
        except ValueError:
            messages.error(request, f"{words.capitalize()}: enter a whole number of days.")
            return redirect("consent-staff-policy")
    try:
        host_retention_set(host=request.user.host, days=days, actor=Actor.for_user(request.user))
    except Invalid as invalid:
        messages.error(request, f"{invalid.message}.")
    else:
        messages.success(request, "Retention saved.")
    return redirect("consent-staff-policy")
