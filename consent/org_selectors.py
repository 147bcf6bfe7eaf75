"""Reads of organisation grants, scoped to the host (staff pages, the API).

Kept beside ``selectors.py`` rather than in it: what a member holds is an
ordinary ``Grant`` and is read there; this reads the organisation's side."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from consent.models import GrantStatus, OrgGrant
from switchboard.errors import NotFound
from switchboard.models import Host


def org_grants_for_host(*, host: Host) -> QuerySet[OrgGrant]:
    """Newest first, each with ``members_active``: how many members hold an
    active grant from it (people, not scopes)."""
    host_id = host.id
    return (
        OrgGrant.objects.filter(host_id=host_id)
        .select_related("server")
        .annotate(
            members_active=Count(
                "member_grants__user",
                filter=Q(member_grants__status=GrantStatus.ACTIVE),
                distinct=True,
            )
        )
        .order_by("-created_at", "-id")
    )


def org_grant_get_for_host(*, host: Host, org_grant_id: str) -> OrgGrant:
    found = org_grants_for_host(host=host).filter(pk=org_grant_id).first()
    if found is None:
        raise NotFound(f"no organisation grant {org_grant_id!r} for this host", field="id")
    return found
