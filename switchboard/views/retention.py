"""Staff: how long the ledger keeps its entries' details for this host
(the form sits on the policy page; the setting belongs to the core)."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from switchboard.actors import Actor
from switchboard.errors import Invalid
from switchboard.services.ledger_retention import host_ledger_retention_set
from switchboard.views.access import admin_required


@require_POST
@admin_required
def ledger_retention_save(request):
    raw = request.POST.get("days", "").strip()
    try:
        days = int(raw) if raw else None
        host_ledger_retention_set(
            host=request.user.host, days=days, actor=Actor.for_user(request.user)
        )
    except ValueError:
        messages.error(request, "Days: enter a whole number, or leave it empty for the default.")
    except Invalid as invalid:
        messages.error(request, f"Days: {invalid.message}.")
    else:
        messages.success(request, "Ledger retention saved.")
    return redirect("consent-staff-policy")
