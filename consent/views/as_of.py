"""The "as of" control of the staff page of one user: their grants as they
stood at a moment staff choose, rebuilt from the ledger (``consent.as_of``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.utils import timezone

from consent.as_of import GrantAsOf, LedgerPosition, grants_as_of, ledger_position
from switchboard.models import McpServer, User


@dataclass
class AsOfView:
    asked: str = ""  # what staff typed, shown back in the field
    at: datetime | None = None
    error: str = ""
    grants: list[GrantAsOf] = field(default_factory=list)
    # Where in the host's log the answer is read, and the checkpoint that
    # covers it: what staff print beside the answer to check it later.
    ledger: LedgerPosition | None = None


def _moment(text: str) -> datetime:
    """The page's ``datetime-local`` field (no zone: UTC, the console's zone,
    as every page shows it) or a full RFC 3339 date-time."""
    moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    if timezone.is_naive(moment):
        moment = moment.replace(tzinfo=UTC)
    return moment


def as_of_view(subject: User, asked: str | None) -> AsOfView:
    view = AsOfView(asked=(asked or "").strip()[:64])
    if not view.asked:
        return view
    try:
        view.at = _moment(view.asked)
        view.at.astimezone(UTC)  # out of range for the zone: refused here, not by the query
    except (ValueError, OverflowError):
        view.error = "at: give a date and time, e.g. 2026-01-31T09:00 (UTC)"
        view.at = None
        return view
    view.grants = grants_as_of(user=subject, at=view.at)
    view.ledger = ledger_position(user=subject, grants=view.grants)
    names = dict(
        McpServer.objects.filter(pk__in={g.server_id for g in view.grants}).values_list(
            "id", "name"
        )
    )
    for grant in view.grants:
        grant.server_name = names.get(grant.server_id, grant.server_id)
    return view
