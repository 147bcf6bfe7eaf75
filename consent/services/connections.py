"""Disconnect: the user removes their own credentials for one server.

The server keeps its consent (what it may do is unchanged) but from the next
call it acts as the host's account, or as nobody when the host registered it
without credentials. Each open grant that named the user's own account says
so now: a ``consent.identity_changed`` ledger entry and ``consent.updated``
to the host with the new ``identity``.
"""

from __future__ import annotations

from django.db import transaction

from consent import live
from consent.models import OPEN_STATUSES, Grant, Identity
from consent.services.grants import grant_record
from consent.services.notify import grant_change_notify
from switchboard.actors import Actor
from switchboard.errors import Conflict
from switchboard.models import McpServer, User
from switchboard.services.users import user_credentials_remove


@transaction.atomic
def server_disconnect(*, user: User, server: McpServer, actor: Actor) -> list[Grant]:
    """Remove the user's credentials for ``server``; returns the grants whose
    account changed. 409 ``not_connected`` when there were none."""
    names = user_credentials_remove(user=user, server=server, actor=actor)
    if not names:
        raise Conflict(
            f"{server.name} does not use credentials of yours", code="not_connected", field="server"
        )
    changed = []
    grants = (
        Grant.objects.select_for_update(no_key=True)
        .select_related("server", "user")
        .filter(user=user, server=server, status__in=OPEN_STATUSES, identity=Identity.USER)
    )
    for grant in grants:
        grant.identity = Identity.HOST
        grant.save(update_fields=["identity", "updated_at"])
        grant_record(
            grant,
            kind="identity_changed",
            actor=actor,
            summary=f"{server.name} no longer uses {user.label}'s own account; "
            "it acts as the host's account",
            detail={
                "identity": Identity.HOST,
                "previous_identity": Identity.USER,
                "reason": "disconnected",
                "header_names": names,
            },
        )
        grant_change_notify(
            grant=grant,
            previous_status=grant.status,
            extra={"identity": Identity.HOST, "reason": "disconnected"},
        )
        changed.append(grant)
    if not changed:
        live.server_cards_changed(user)
    return changed
