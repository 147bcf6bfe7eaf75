"""Consent's part in what the core announces (``switchboard.signals``)."""

from __future__ import annotations

from typing import Any

from consent.models import OPEN_STATUSES, Grant, GrantStatus
from consent.services import (
    grant_revoke,
    grant_suspend,
    grants_on_declarations_changed,
    grants_on_registration_changed,
    org_grants_membership_follow,
    user_consent_erase,
)
from consent.services.org_grants import org_grants_of_server_end, org_grants_of_server_hold
from switchboard.actors import Actor
from switchboard.models import McpServer, User
from switchboard.retiring import plural


def erase_user(*, user: User, actor: Actor, **_: Any) -> None:
    """Revoke every grant, close open requests, erase injected text."""
    user_consent_erase(user=user, actor=actor)


def server_declarations_changed(
    *, server: McpServer, added_hook_ids: list[str], removed_hook_ids: list[str], **_: Any
) -> None:
    """Suspend what the user approved but the server no longer declares alike."""
    grants_on_declarations_changed(
        server=server, removed_hook_ids=removed_hook_ids, added_hook_ids=added_hook_ids
    )


def server_registration_changed(
    *, server: McpServer, actor: Actor, changed: list[str], **_: Any
) -> None:
    """Consent follows the server the user saw: a new URL or other header
    names suspend what was approved under the old ones, and ask again."""
    grants_on_registration_changed(server=server, actor=actor, changed=changed)


def server_retiring(*, server: McpServer, actor: Actor, **_: Any) -> None:
    """A removed server keeps no consent (its subscriptions end with it)."""
    org_grants_of_server_end(server=server, actor=actor)
    grants = Grant.objects.filter(server=server, status__in=OPEN_STATUSES)
    for grant in grants.select_related("server", "user"):
        grant_revoke(grant=grant, actor=actor)


def server_blocking(*, server: McpServer, actor: Actor, **_: Any) -> dict[str, int]:
    """The kill switch: every live grant of the server is suspended (not
    revoked: the record of what users allowed stays, and they consent again
    after an unblock)."""
    grants = Grant.objects.filter(server=server, status=GrantStatus.ACTIVE)
    suspended = 0
    for grant in grants.select_related("server", "user"):
        grant_suspend(grant=grant, actor=actor, reason="server_blocked")
        suspended += 1
    # Grants for groups with no member holding one yet stop too.
    org_grants_of_server_hold(server=server, actor=actor, reason="server_blocked")
    return {"grants_suspended": suspended}


def user_groups_changed(*, user: User, actor: Actor, **_: Any) -> None:
    """Consent an organisation gave to a group starts or ends with membership."""
    org_grants_membership_follow(user=user, actor=actor)


def consents_of_server(server: McpServer) -> str:
    """For the removal confirmation: what consent ends with the server."""
    grants = Grant.objects.filter(server=server, status__in=OPEN_STATUSES)
    count, users = grants.count(), grants.values("user").distinct().count()
    if not count:
        return ""
    return (
        f"{plural(count, 'open consent')} of {plural(users, 'user')} "
        "(revoked, and recorded as such)"
    )
