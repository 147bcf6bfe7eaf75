"""Hooks' part in what the core announces (``switchboard.signals``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Count, Max

from hooks.models import HookFiring
from hooks.services import hooks_forget_user
from switchboard.models import User


def erase_user(*, user: User, **_: Any) -> None:
    """Erase every text a hook injected for the user."""
    hooks_forget_user(user=user)


def hook_calls(
    user: User, server_ids: list[str], since: datetime
) -> dict[str, tuple[int, datetime | None]]:
    """For the user's connections (``consent.connections``): the hooks of each
    server that fired for the user since ``since``, and the last one."""
    rows = (
        HookFiring.objects.filter(user=user, server_id__in=server_ids, created_at__gte=since)
        .values_list("server_id")
        .annotate(calls=Count("id"), last=Max("created_at"))
        .order_by()
    )
    return {server_id: (calls, last) for server_id, calls, last in rows}
