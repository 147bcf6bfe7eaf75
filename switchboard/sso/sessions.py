"""Staff sessions: recorded at sign-in (where, when, how), listed on the
sessions page, and ended — one, all of a person, or all of a host's SSO
sessions — by deleting the Django session and closing its sockets."""

from __future__ import annotations

from datetime import datetime

from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone

from switchboard.actors import Actor
from switchboard.broadcast import sessions_end_now
from switchboard.live import staff_sessions_changed
from switchboard.models import Host, StaffSession, User
from switchboard.services.audit import audit_record


def staff_session_record(*, request, user: User, method: str, expires_at: datetime) -> None:
    """Call right after ``login()``: the session key is the new one."""
    if not request.session.session_key:
        request.session.save()
    StaffSession.objects.create(
        user=user,
        session_key=request.session.session_key,
        method=method,
        ip=request.META.get("REMOTE_ADDR") or None,
        user_agent=request.META.get("HTTP_USER_AGENT", "")[:300],
        expires_at=expires_at,
    )
    staff_sessions_changed({user.tenant_id})


def _end(rows) -> int:
    """End these sessions now: their next request is signed out (the session
    row is gone) and their open live pages' sockets close."""
    rows = list(rows.filter(ended_at__isnull=True).select_related("user"))
    if not rows:
        return 0
    keys = [row.session_key for row in rows]
    Session.objects.filter(session_key__in=keys).delete()
    StaffSession.objects.filter(pk__in=[row.pk for row in rows]).update(ended_at=timezone.now())

    def close_sockets() -> None:
        for key in keys:
            sessions_end_now(session_key=key)

    transaction.on_commit(close_sockets)
    staff_sessions_changed({row.user.tenant_id for row in rows})
    return len(rows)


@transaction.atomic
def staff_sessions_end(
    *,
    actor: Actor,
    reason: str,
    user: User | None = None,
    host: Host | None = None,
    method: str | None = None,
    session_id: str | None = None,
) -> int:
    """End one person's sessions (or one of them), or a host's sessions of a
    method; records ``staff.sessions_ended`` for each person concerned."""
    rows = StaffSession.objects.filter(ended_at__isnull=True).select_related("user")
    if user is not None:
        rows = rows.filter(user=user)
    if host is not None:
        rows = rows.filter(user__host=host)
    if method is not None:
        rows = rows.filter(method=method)
    if session_id is not None:
        rows = rows.filter(pk=session_id)
    by_user: dict[str, list[StaffSession]] = {}
    for row in rows:
        by_user.setdefault(row.user_id, []).append(row)
    total = 0
    for sessions in by_user.values():
        person = sessions[0].user
        ended = _end(StaffSession.objects.filter(pk__in=[s.pk for s in sessions]))
        total += ended
        audit_record(
            host_id=person.tenant_id,
            kind="staff.sessions_ended",
            actor=actor,
            summary=f"{ended} session(s) of {person.email or person.label} ended ({reason})",
            subject_type="user",
            subject_id=person.id,
            detail={"email": person.email, "sessions": ended, "reason": reason},
        )
    return total


def staff_sessions_open(*, user: User):
    return StaffSession.objects.filter(
        user=user, ended_at__isnull=True, expires_at__gt=timezone.now()
    ).order_by("-created_at")
