"""What the organisation decides about a staff member through SCIM: their
role (from the groups they are in) and whether they may be here at all."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from switchboard.actors import Actor
from switchboard.broadcast import sessions_end_for_user
from switchboard.models import LoginLink, Role, SsoConnection, User
from switchboard.services.audit import audit_record
from switchboard.sso.sessions import staff_sessions_end

SCIM_ACTOR = Actor.system("SCIM provisioning")


def _record(user: User, kind: str, summary: str, **detail) -> None:
    audit_record(
        host_id=user.tenant_id,
        kind=kind,
        actor=SCIM_ACTOR,
        summary=summary,
        subject_type="user",
        subject_id=user.id,
        detail={"email": user.email, **detail},
    )


def role_from_groups(connection: SsoConnection | None, group_names: list[str]) -> str:
    if connection is None:
        return Role.NONE
    if any(name in connection.admin_values for name in group_names):
        return Role.ADMIN
    if any(name in connection.auditor_values for name in group_names):
        return Role.AUDITOR
    return Role.NONE


@transaction.atomic
def staff_role_set(*, user: User, role: str) -> None:
    """The role SCIM's groups give (an inactive person keeps none)."""
    if not user.is_active:
        role = Role.NONE
    if user.role == role:
        return
    previous = user.role
    user.role = role
    user.save(update_fields=["role"])
    if role == Role.NONE:
        _record(user, "staff.role_removed", f"{user.email} has no role any more", role=previous)
    else:
        _record(
            user,
            "staff.role_changed",
            f"{user.email} is now {role} (was {previous}), as the IdP's groups say",
            **{"from": previous, "to": role},
        )


@transaction.atomic
def staff_deactivate(*, user: User, reason: str) -> None:
    """The organisation says this person is gone: every session ends now
    (their next request is signed out, their open pages' sockets close),
    their break-glass links stop working, and their role goes."""
    if user.is_active:
        user.is_active = False
        user.save(update_fields=["is_active"])
        _record(user, "staff.deactivated", f"{user.email} deactivated ({reason})", reason=reason)
    staff_sessions_end(user=user, actor=SCIM_ACTOR, reason=reason)
    sessions_end_for_user(user_id=user.id)  # sockets of sessions started before they were recorded
    voided = LoginLink.objects.filter(
        user=user, used_at__isnull=True, expires_at__gt=timezone.now()
    ).update(expires_at=timezone.now())
    _record(
        user,
        "staff.login_links_voided",
        f"{voided} sign-in link(s) of {user.email} voided",
        links=voided,
    )
    staff_role_set(user=user, role=Role.NONE)


@transaction.atomic
def staff_reactivate(*, user: User) -> None:
    if not user.is_active:
        user.is_active = True
        user.save(update_fields=["is_active"])
        _record(user, "staff.reactivated", f"{user.email} reactivated by the IdP")
