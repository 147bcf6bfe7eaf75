"""Organisation grants: an admin allows a server for groups of users (or
everyone), and nobody is asked.

Each member holds a ``Grant`` of their own for it (``Grant.org_grant``,
channel ``organisation``), given and taken away through the same ledger
entries, host deliveries (``consent.updated``) and signals as consent a user
gave themselves, so every path that reads a user's grants (the message plan,
hooks, subscriptions, ``consent.enforce``) reads these too. What makes it
safe to lag: ``Grant.objects.live`` also checks, at every call, that the
organisation grant is still active and the user still in one of its groups.

A member gets their grant for a scope unless they already hold an open one
for that server and scope (their own answer stands) or turned this one off.
"""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from consent.models import (
    OPEN_STATUSES,
    Channel,
    Grant,
    GrantStatus,
    OrgGrant,
    OrgGrantGroup,
    OrgGrantOptOut,
    OrgGrantStatus,
    Scope,
)
from consent.services.grants import SCOPE_WORDS, grant_change_follow, grant_record, grant_revoke
from consent.services.request_asking import request_scopes_check
from consent.snapshots import current_hooks, scope_snapshot, snapshot_hash
from switchboard.actors import Actor
from switchboard.broadcast import broadcast_topics
from switchboard.errors import Conflict, Forbidden, Invalid
from switchboard.models import Host, McpServer, Role, User
from switchboard.selectors import user_groups_of
from switchboard.services.audit import audit_record
from switchboard.services.server_block import server_block_refuse
from switchboard.services.users import GROUP_NAME_MAX, GROUPS_MAX

EVERYONE = "*"
TOPIC = "org_grants"


def _who(actor: Actor, staff: User | None) -> str:
    """Who allowed it, as members read it: a staff member's email, else the
    actor's label (and the person an API call was made for)."""
    if staff is not None and staff.email:
        return staff.email
    if actor.on_behalf_of:
        return f"{actor.on_behalf_of} ({actor.label})"
    return actor.label or actor.kind


def _groups_check(groups: list[str]) -> list[str]:
    if not groups:
        raise Invalid('groups must name at least one group, or be ["*"]', field="groups")
    if EVERYONE in groups:
        if groups != [EVERYONE]:
            raise Invalid('"*" (every user) stands alone in groups', field="groups")
        return groups
    if len(groups) > GROUPS_MAX:
        raise Invalid(f"groups holds at most {GROUPS_MAX} names", field="groups")
    for name in groups:
        if not 1 <= len(name) <= GROUP_NAME_MAX or not name.isprintable():
            raise Invalid(
                f"each group is a printable name of 1–{GROUP_NAME_MAX} characters",
                field="groups",
            )
    return sorted(set(groups))


def _hook_ids_check(server: McpServer, scopes: list[str], hook_ids: list[str] | None) -> list[str]:
    if Scope.HOOKS not in scopes:
        if hook_ids:
            raise Invalid("hook_ids need the hooks scope", field="hook_ids")
        return []
    declared = [d.hook_id for d in current_hooks(server)]
    if hook_ids is None:
        return declared
    unknown = [h for h in hook_ids if h not in declared]
    if unknown:
        raise Invalid(f"the server declares no hook {unknown[0]!r}", field="hook_ids")
    if not hook_ids:
        raise Invalid("name at least one hook for the hooks scope", field="hook_ids")
    return sorted(set(hook_ids))


def _record(org: OrgGrant, *, kind: str, actor: Actor, summary: str, **detail) -> None:
    audit_record(
        host_id=org.host_id,
        kind=f"org_grant.{kind}",
        actor=actor,
        server_id=org.server_id,
        subject_type="org_grant",
        subject_id=org.id,
        summary=summary,
        detail={"status": org.status, **detail},
    )
    broadcast_topics(topics=[TOPIC], host_id=org.host_id)


def org_grant_members(org: OrgGrant):
    """The end users the grant is for now (not those who turned it off)."""
    users = User.objects.filter(host_id=org.host_id, role=Role.END_USER, deleted_at__isnull=True)
    if not org.all_users:
        users = users.filter(org_groups__name__in=org.groups).distinct()
    return users


@transaction.atomic
def org_grant_create(
    *,
    host: Host,
    server: McpServer,
    scopes: list[str],
    groups: list[str],
    user_can_revoke: bool,
    actor: Actor,
    event_types: list[str] | None = None,
    hook_ids: list[str] | None = None,
    expires_at: datetime | None = None,
    staff: User | None = None,
) -> OrgGrant:
    """Allow ``server`` for ``groups`` (``["*"]``: every user). Refused for a
    blocked server (409 ``server_blocked``) and for one the policy does not
    allow (403 ``server_not_allowed``): it never widens the policy."""
    server_block_refuse(server)
    scopes, names = request_scopes_check(
        host=host, server=server, scopes=scopes, event_types=event_types
    )
    groups = _groups_check(groups)
    hooks = _hook_ids_check(server, scopes, hook_ids)
    if expires_at is not None and expires_at <= timezone.now():
        raise Invalid("expires_at must be in the future", field="expires_at")
    org = OrgGrant.objects.create(
        host=host,
        server=server,
        scopes=scopes,
        event_types=names,
        hook_ids=hooks,
        groups=groups,
        all_users=groups == [EVERYONE],
        user_can_revoke=user_can_revoke,
        expires_at=expires_at,
        created_by=_who(actor, staff),
        created_by_user=staff,
    )
    if not org.all_users:
        OrgGrantGroup.objects.bulk_create([OrgGrantGroup(org_grant=org, name=g) for g in groups])
    _record(
        org,
        kind="created",
        actor=actor,
        summary=f"{server.name} allowed for {', '.join(groups)} by the organisation",
        scopes=scopes,
        event_types=names,
        hook_ids=hooks,
        groups=groups,
        user_can_revoke=user_can_revoke,
        expires_at=expires_at.isoformat() if expires_at else None,
    )
    for user in org_grant_members(org):
        _give(org, user, actor=actor)
    return org


def _give(org: OrgGrant, user: User, *, actor: Actor) -> list[Grant]:
    """The member's own grants for each scope of ``org`` they lack."""
    given = []
    opted_out = set(
        OrgGrantOptOut.objects.filter(org_grant=org, user=user).values_list("scope", flat=True)
    )
    held = set(
        Grant.objects.filter(
            user=user, server_id=org.server_id, status__in=OPEN_STATUSES
        ).values_list("scope", flat=True)
    )
    for scope in org.scopes:
        if scope in opted_out or scope in held:
            continue
        grant = _member_grant_create(org, user, scope)
        if grant is None:
            continue
        _member_grant_record(grant, org, actor=actor, previous_status=None)
        given.append(grant)
    return given


def _member_grant_create(org: OrgGrant, user: User, scope: str) -> Grant | None:
    shown = scope_snapshot(
        server=org.server,
        user_id=user.id,
        scope=scope,
        event_types=org.event_types if scope == Scope.EVENTS else None,
    )
    digest = snapshot_hash(shown)
    try:
        with transaction.atomic():
            return Grant.objects.create(
                host_id=org.host_id,
                user=user,
                server=org.server,
                scope=scope,
                status=GrantStatus.ACTIVE,
                org_grant=org,
                approved_hook_ids=org.hook_ids if scope == Scope.HOOKS else [],
                approved_event_types=org.event_types if scope == Scope.EVENTS else [],
                shown=shown,
                declaration_hash=digest,
                approved_shown=shown,
                approved_hash=digest,
                identity=shown["identity"],
                channel=Channel.ORGANISATION,
                decided_by=org.created_by_user,
                granted_at=timezone.now(),
                expires_at=org.expires_at,
            )
    except IntegrityError:
        return None  # the user opened one of their own meanwhile: theirs stands


def _member_grant_record(
    grant: Grant, org: OrgGrant, *, actor: Actor, previous_status: str | None
) -> None:
    grant_record(
        grant,
        kind="approved",
        actor=actor,
        summary=(
            f"{grant.server.name} may {SCOPE_WORDS.get(grant.scope, grant.scope)} "
            f"(allowed by the organisation: {org.created_by})"
        ),
        detail={
            "previous_status": previous_status,
            "approved_hooks": grant.approved_hook_ids,
            "approved_event_types": grant.approved_event_types,
            "declaration_hash": grant.declaration_hash,
            "shown": grant.shown,
            "identity": grant.identity,
            "channel": Channel.ORGANISATION,
            "source": "organisation",
            "org_grant_id": org.id,
            "allowed_by": org.created_by,
            "expires_at": grant.expires_at.isoformat() if grant.expires_at else None,
        },
    )
    grant_change_follow(grant, previous_status=previous_status, actor=actor)


def _take_back(org: OrgGrant, *, actor: Actor, reason: str, user: User | None = None) -> int:
    grants = Grant.objects.filter(org_grant=org, status__in=OPEN_STATUSES)
    if user is not None:
        grants = grants.filter(user=user)
    count = 0
    for grant in grants.select_related("server", "user"):
        grant_revoke(grant=grant, actor=actor, reason=reason)
        count += 1
    return count


def _locked(org: OrgGrant) -> OrgGrant:
    return OrgGrant.objects.select_for_update(no_key=True).select_related("server").get(pk=org.pk)


@transaction.atomic
def org_grant_end(*, org_grant: OrgGrant, actor: Actor, staff: User | None = None) -> OrgGrant:
    """End it for everyone: it stops applying at the very next call (the
    live check reads its status), and each member's grant is revoked."""
    org = _locked(org_grant)
    if org.status == OrgGrantStatus.ENDED:
        return org
    previous = org.status
    org.status = OrgGrantStatus.ENDED
    org.ended_at = timezone.now()
    org.ended_by = _who(actor, staff)
    org.save(update_fields=["status", "ended_at", "ended_by", "updated_at"])
    _record(
        org,
        kind="ended",
        actor=actor,
        summary=f"The organisation ended its grant of {org.server.name}",
        previous_status=previous,
    )
    _take_back(org, actor=actor, reason="org_grant_ended")
    return org


@transaction.atomic
def org_grant_approve(*, org_grant: OrgGrant, actor: Actor) -> OrgGrant:
    """A grant suspended by a change of its server (or a block) applies
    again: members' suspended grants become active with what the server
    declares now, and members without one get theirs."""
    org = _locked(org_grant)
    if org.status != OrgGrantStatus.SUSPENDED:
        raise Conflict(
            f"only a suspended organisation grant is approved again (this one is {org.status})",
            code="not_suspended",
        )
    server_block_refuse(org.server)
    org.status = OrgGrantStatus.ACTIVE
    org.suspended_at = None
    org.suspended_reason = ""
    org.save(update_fields=["status", "suspended_at", "suspended_reason", "updated_at"])
    _record(org, kind="approved", actor=actor, summary=f"{org.server.name} allowed again")
    held = Grant.objects.filter(org_grant=org, status=GrantStatus.SUSPENDED)
    for grant in held.select_related("server", "user"):
        _member_grant_resume(grant, org, actor=actor)
    for user in org_grant_members(org):
        _give(org, user, actor=actor)
    return org


def _member_grant_resume(grant: Grant, org: OrgGrant, *, actor: Actor) -> None:
    shown = scope_snapshot(
        server=org.server,
        user_id=grant.user_id,
        scope=grant.scope,
        event_types=org.event_types if grant.scope == Scope.EVENTS else None,
    )
    declared = {d.hook_id for d in current_hooks(org.server)}
    grant.status = GrantStatus.ACTIVE
    grant.suspended_at = None
    grant.shown = grant.approved_shown = shown
    grant.declaration_hash = grant.approved_hash = snapshot_hash(shown)
    if grant.scope == Scope.HOOKS:
        grant.approved_hook_ids = [h for h in org.hook_ids if h in declared]
    grant.granted_at = timezone.now()
    grant.save()
    _member_grant_record(grant, org, actor=actor, previous_status=GrantStatus.SUSPENDED)


def org_grants_membership_follow(*, user: User, actor: Actor) -> None:
    """A user's groups changed (or the user is new): grants for a group
    they joined are given, those for groups they all left are taken back
    (the live check has already stopped them)."""
    if not user.is_end_user:
        return
    mine = set(user_groups_of(user=user))
    active = OrgGrant.objects.filter(host_id=user.tenant_id, status=OrgGrantStatus.ACTIVE)
    for org in active.select_related("server"):
        if org.all_users or mine & set(org.groups):
            if org.status_now == OrgGrantStatus.ACTIVE and org.server.blocked_at is None:
                _give(org, user, actor=actor)
        else:
            _take_back(org, actor=actor, reason="left_group", user=user)


@transaction.atomic
def grant_turn_off(*, grant: Grant, actor: Actor) -> Grant:
    """The user (or the host or staff for them) turns a grant off. One the
    organisation gave is turned off only where it lets members do so (else
    403 ``revoke_not_allowed``), and is then not given to them again."""
    if grant.org_grant_id is not None:
        org = grant.org_grant
        if org is None or not org.user_can_revoke:
            raise Forbidden(
                "this permission was given by the organisation and cannot be turned off "
                "by the user; ask an administrator",
                code="revoke_not_allowed",
                field="grant_id",
            )
        OrgGrantOptOut.objects.get_or_create(org_grant=org, user=grant.user, scope=grant.scope)
    return grant_revoke(grant=grant, actor=actor, reason="turned_off_by_user")


@transaction.atomic
def grants_turn_off_all(*, user: User, actor: Actor, server: McpServer | None = None) -> int:
    """ "Take back everything" from the user's page: every open grant they
    may turn off (those the organisation keeps on stay on)."""
    grants = Grant.objects.filter(user=user, status__in=OPEN_STATUSES).select_related(
        "server", "user", "org_grant"
    )
    if server is not None:
        grants = grants.filter(server=server)
    count = 0
    for grant in grants:
        if grant.org_grant is not None and not grant.org_grant.user_can_revoke:
            continue
        grant_turn_off(grant=grant, actor=actor)
        count += 1
    return count


def org_grant_hold(*, org_grant: OrgGrant, actor: Actor, reason: str) -> None:
    """Suspend it (its server changed, or was blocked): nothing of it is
    used until an admin approves it again. Members' active grants are
    suspended by the same change (every grant of the server is)."""
    org = _locked(org_grant)
    if org.status != OrgGrantStatus.ACTIVE:
        return
    org.status = OrgGrantStatus.SUSPENDED
    org.suspended_at = timezone.now()
    org.suspended_reason = reason
    org.save(update_fields=["status", "suspended_at", "suspended_reason", "updated_at"])
    _record(
        org,
        kind="suspended",
        actor=actor,
        summary=f"The organisation's grant of {org.server.name} is on hold ({reason})",
        reason=reason,
    )


def org_grants_of_server_hold(*, server: McpServer, actor: Actor, reason: str) -> int:
    active = OrgGrant.objects.filter(server=server, status=OrgGrantStatus.ACTIVE)
    count = 0
    for org in active:
        org_grant_hold(org_grant=org, actor=actor, reason=reason)
        count += 1
    return count


def org_grants_of_server_end(*, server: McpServer, actor: Actor) -> None:
    for org in OrgGrant.objects.filter(server=server).exclude(status=OrgGrantStatus.ENDED):
        org_grant_end(org_grant=org, actor=actor)
