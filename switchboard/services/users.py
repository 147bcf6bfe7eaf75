"""End users and staff, and the one-time login links that sign them in."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme

from switchboard.actors import Actor
from switchboard.broadcast import sessions_end_for_user
from switchboard.errors import Invalid
from switchboard.models import (
    Host,
    LoginLink,
    McpServer,
    Role,
    User,
    UserGroup,
    UserServerCredential,
)
from switchboard.selectors import user_groups_of
from switchboard.services.audit import audit_record
from switchboard.signals import user_erasing, user_groups_changed

EXTERNAL_ID_MAX = 200
GROUPS_MAX = 50
GROUP_NAME_MAX = 100


def validate_external_id(external_id: str) -> str:
    if not 1 <= len(external_id) <= EXTERNAL_ID_MAX:
        raise Invalid("external_id must be 1–200 characters", field="external_id")
    if "/" in external_id or not external_id.isprintable():
        raise Invalid("external_id must be printable and contain no '/'", field="external_id")
    return external_id


def _validate_email(email: str) -> None:
    """Django's own email check (``""`` clears the address, so it passes)."""
    try:
        validate_email(email)
    except ValidationError:
        raise Invalid(f"{email!r} is not an email address", field="email") from None


def validate_groups(groups: list[str]) -> list[str]:
    """0–50 names of 1–100 printable characters; ``*`` is not a name (an
    organisation grant for ``*`` means every user). Sorted, duplicates once."""
    if len(groups) > GROUPS_MAX:
        raise Invalid(f"groups holds at most {GROUPS_MAX} names", field="groups")
    for name in groups:
        if not isinstance(name, str) or not 1 <= len(name) <= GROUP_NAME_MAX:
            raise Invalid(f"each group is a name of 1–{GROUP_NAME_MAX} characters", field="groups")
        if not name.isprintable() or name.strip() != name or name == "*":
            raise Invalid(
                f"group {name!r} must be printable, without surrounding spaces, and not '*'",
                field="groups",
            )
    return sorted(set(groups))


def _groups_set(user: User, groups: list[str]) -> tuple[list[str], list[str]]:
    """Make the user's groups exactly ``groups``; returns (added, removed)."""
    before = set(user_groups_of(user=user))
    wanted = set(groups)
    added, removed = sorted(wanted - before), sorted(before - wanted)
    if removed:
        UserGroup.objects.filter(user=user, name__in=removed).delete()
    UserGroup.objects.bulk_create([UserGroup(user=user, name=name) for name in added])
    return added, removed


@transaction.atomic
def user_upsert(
    *,
    host: Host,
    external_id: str,
    actor: Actor,
    display_name: str | None = None,
    email: str | None = None,
    groups: list[str] | None = None,
) -> tuple[User, bool]:
    """Create or update an end user. ``groups`` (None: unchanged) replaces
    their groups; a change (and every creation) is announced with
    ``user_groups_changed``, inside this transaction, so consent given to a
    group starts or ends with it."""
    validate_external_id(external_id)
    if email:
        _validate_email(email)
    if groups is not None:
        groups = validate_groups(groups)
    found = (
        User.objects.select_for_update(no_key=True)
        .filter(host=host, external_id=external_id)
        .first()
    )
    created = found is None
    if found is None:
        user = User(host=host, external_id=external_id, role=Role.END_USER)
        user.username = user.id
        user.set_unusable_password()
    else:
        user = found
    if not created and user.deleted_at is not None:
        user.deleted_at = None
        user.is_active = True
        created = True
    if display_name is not None:
        user.display_name = display_name
    if email is not None:
        user.email = email
    user.save()
    added, removed = _groups_set(user, groups) if groups is not None else ([], [])
    audit_record(
        host_id=host.id,
        kind="user.created" if created else "user.updated",
        actor=actor,
        user=user,
        summary=f"User {external_id} {'created' if created else 'updated'}",
        subject_type="user",
        subject_id=user.id,
        detail={"groups_added": added, "groups_removed": removed} if added or removed else None,
    )
    if created or added or removed:
        user_groups_changed.send(sender=User, user=user, added=added, removed=removed, actor=actor)
    return user, created


@transaction.atomic
def staff_create(*, host: Host, email: str, role: str, actor: Actor) -> User:
    if role not in (Role.ADMIN, Role.AUDITOR):
        raise Invalid("role must be admin or auditor", field="role")
    user = User.objects.filter(host=host, email__iexact=email).exclude(role=Role.END_USER).first()
    if user is None:
        user = User(host=host, email=email, role=role, display_name=email)
        user.username = user.id
        user.set_unusable_password()
    user.role = role
    user.save()
    audit_record(
        host_id=host.id,
        kind="staff.saved",
        actor=actor,
        summary=f"Staff {email} is {role}",
        subject_type="user",
        subject_id=user.id,
        detail={"role": role},
    )
    return user


def _safe_next(next_path: str | None) -> str:
    if not next_path:
        return ""
    if not next_path.startswith("/") or not url_has_allowed_host_and_scheme(
        next_path, allowed_hosts=None
    ):
        raise Invalid("next must be a path on the console, like /consent/…", field="next")
    return next_path[:500]


def _hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@transaction.atomic
def login_link_create(
    *, user: User, actor: Actor, next_path: str | None = None
) -> tuple[str, LoginLink]:
    """Issue a one-time link; returns its URL (holding the only copy of the token)."""
    token = secrets.token_urlsafe(32)
    link = LoginLink.objects.create(
        user=user,
        token_hash=_hash_token(token),
        next_path=_safe_next(next_path),
        expires_at=timezone.now() + timedelta(seconds=settings.LOGIN_LINK_TTL),
    )
    audit_record(
        host_id=user.tenant_id,
        kind="login_link.issued",
        actor=actor,
        user=user if user.is_end_user else None,
        summary=f"Login link issued for {user.label}",
        subject_type="login_link",
        subject_id=link.id,
    )
    return f"{settings.PUBLIC_BASE_URL}/login/{token}", link


class LoginLinkRejected(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason  # "unknown" | "used" | "expired" | "inactive"


@transaction.atomic
def login_link_consume(*, token: str) -> LoginLink:
    """Claim a link exactly once, also when two browsers race for it."""
    link = (
        # Only the link: its user is read, not changed.
        LoginLink.objects.select_for_update(no_key=True, of=("self",))
        .select_related("user")
        .filter(token_hash=_hash_token(token))
        .first()
    )
    if link is None:
        raise LoginLinkRejected("unknown")
    if link.used_at is not None:
        raise LoginLinkRejected("used")
    if link.expires_at <= timezone.now():
        raise LoginLinkRejected("expired")
    if not link.user.is_active or link.user.deleted_at is not None:
        raise LoginLinkRejected("inactive")
    claimed = LoginLink.objects.filter(pk=link.pk, used_at__isnull=True).update(
        used_at=timezone.now()
    )
    if claimed != 1:
        raise LoginLinkRejected("used")
    user = link.user
    if user.is_end_user:
        audit_record(
            host_id=user.tenant_id,
            kind="user.signed_in",
            actor=Actor.for_user(user),
            user=user,
            summary=f"{user.label} signed in",
            subject_type="login_link",
            subject_id=link.id,
        )
    else:
        # Staff normally sign in through their organisation (OIDC); a link
        # printed on the server is the break-glass way in, and says so.
        audit_record(
            host_id=user.tenant_id,
            kind="staff.signed_in",
            actor=Actor.for_user(user),
            summary=f"{user.label} signed in with a break-glass link",
            subject_type="login_link",
            subject_id=link.id,
            detail={"method": "link", "email": user.email, "role": user.role},
        )
    return link


@transaction.atomic
def user_credentials_set(
    *, user: User, server: McpServer, headers: dict[str, str], actor: Actor
) -> None:
    UserServerCredential.objects.update_or_create(
        user=user, server=server, defaults={"headers": headers}
    )
    audit_record(
        host_id=user.tenant_id,
        kind="user.credentials_set",
        actor=actor,
        user=user,
        server_id=server.id,
        summary=f"Credentials for {server.name} set for {user.label}",
        detail={"header_names": sorted(headers)},
    )


@transaction.atomic
def user_credentials_remove(*, user: User, server: McpServer, actor: Actor) -> list[str]:
    """Forget the user's own headers for one server ("Disconnect"): from the
    next call the server sees the host's credentials (or none, if the host
    registered it without any). Returns the header names removed (none if
    there were no credentials)."""
    credential = (
        UserServerCredential.objects.select_for_update().filter(user=user, server=server).first()
    )
    if credential is None:
        return []
    names = sorted(credential.headers or {})
    credential.delete()
    audit_record(
        host_id=user.tenant_id,
        kind="user.credentials_removed",
        actor=actor,
        user=user,
        server_id=server.id,
        summary=f"Credentials of {user.label} for {server.name} removed",
        detail={"header_names": names},
    )
    return names


@transaction.atomic
def user_delete(*, user: User, actor: Actor) -> None:
    """Revoke everything of the user and erase what we kept for them.

    The ledger keeps a tombstone (who, when) — never the content.
    """
    user_erasing.send(sender=User, user=user, actor=actor)
    sessions_end_for_user(user_id=user.id)
    UserServerCredential.objects.filter(user=user).delete()
    LoginLink.objects.filter(user=user).delete()
    external_id = user.external_id
    user.deleted_at = timezone.now()
    user.is_active = False
    user.display_name = ""
    user.email = ""
    user.save()
    audit_record(
        host_id=user.tenant_id,
        kind="user.deleted",
        actor=actor,
        user=user,
        summary=f"User {external_id} deleted; their kept content was erased",
        subject_type="user",
        subject_id=user.id,
    )
