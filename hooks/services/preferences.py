"""A user's mute and downgrade choices for a server's hooks."""

from __future__ import annotations

from django.db import transaction

from hooks.models import CappedPriority, HookPreference
from switchboard.actors import Actor
from switchboard.errors import Invalid
from switchboard.models import HookDeclaration, McpServer, User
from switchboard.services.audit import audit_record


@transaction.atomic
def hook_preference_set(
    *,
    user: User,
    server: McpServer,
    hook_id: str,
    actor: Actor,
    muted: bool | None = None,
    max_priority: str | None = None,
) -> HookPreference | None:
    """Mute/unmute and cap the priority of one hook (``hook_id``) or of every
    hook of the server (``hook_id == ""``). ``max_priority == ""`` removes the
    cap. Returns the preference, or None once it is back to the defaults."""
    if server.host_id != user.host_id:
        raise Invalid("the server belongs to another host", field="server")
    if hook_id and not HookDeclaration.objects.filter(server=server, hook_id=hook_id).exists():
        raise Invalid(f"{server.name} declares no hook {hook_id!r}", field="hook_id")
    if max_priority not in (None, "", *CappedPriority.values):
        raise Invalid("max_priority must be suggestion, important or empty", field="max_priority")
    pref = (
        HookPreference.objects.select_for_update(no_key=True)
        .filter(user=user, server=server, hook_id=hook_id)
        .first()
    ) or HookPreference(user=user, server=server, hook_id=hook_id)
    before = (pref.muted, pref.max_priority)
    if muted is not None:
        pref.muted = muted
    if max_priority is not None:
        pref.max_priority = max_priority
    after = (pref.muted, pref.max_priority)
    if before == after and pref.pk is not None:
        return pref
    kept: HookPreference | None = pref
    if not pref.muted and not pref.max_priority:
        if pref.pk is not None:
            pref.delete()
        kept = None  # back to the defaults: no row
    else:
        pref.save()
    what = hook_id or "all hooks"
    if after[0] != before[0]:
        change = "muted" if after[0] else "unmuted"
    else:
        change = f"capped at {after[1]}" if after[1] else "no longer capped"
    audit_record(
        host_id=server.host_id,
        kind="hook.preference_changed",
        actor=actor,
        user=user,
        server_id=server.id,
        subject_type="hook",
        subject_id=(hook_id or server.id)[:60],
        summary=f"{server.name}: {what} {change}",
        detail={"hook_id": hook_id, "muted": after[0], "max_priority": after[1]},
    )
    return kept
