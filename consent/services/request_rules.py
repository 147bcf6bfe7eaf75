"""When a consent request is settled, and how: the rule, in one place.

Each grant of a request comes out of it in one of a few ways (``Outcome``);
the request's status follows from those (``request_status``). Where the
outcomes come from differs, the rule does not:

- when a grant changes on its own (approved, revoked, expired elsewhere),
  each grant's outcome is read from its state (``grant_outcome``);
- when the user answers the request, the answer says it: a "no" to what a
  request adds to an active grant leaves the grant as it was, so its state
  cannot tell (``consent_request_decide``).
"""

from __future__ import annotations

from enum import StrEnum

from consent.models import OPEN_STATUSES, ConsentRequest, Grant, GrantStatus, RequestStatus
from consent.snapshots import snapshot_event_types, snapshot_hook_ids


class Outcome(StrEnum):
    """How one grant of a request came out."""

    ALL = "all"  # everything it showed is allowed
    SOME = "some"  # allowed, but not everything it showed
    NONE = "none"  # not allowed (denied, closed, or "no" to what was added)
    UNDECIDED = "undecided"  # the user has not answered yet
    NOT_ASKED = "not_asked"  # already allowed when asked, nothing added: says nothing


def additions_open(request: ConsentRequest, grant: Grant) -> dict[str, list[str]] | None:
    """What the user still has to answer about an already-active grant of this
    request (only items the server still declares), or None when the grant was
    not active when asked. An empty answer means "already allowed"."""
    asked = (request.additions or {}).get(grant.id)
    if asked is None:
        return None
    return {
        "hook_ids": sorted(set(asked.get("hook_ids", [])) & set(snapshot_hook_ids(grant.shown))),
        "event_types": sorted(
            set(asked.get("event_types", [])) & set(snapshot_event_types(grant.shown))
        ),
    }


def additions_asked(request: ConsentRequest, grant: Grant) -> dict[str, list[str]] | None:
    """What the request adds to ``grant`` when the grant is active and the
    request adds something to it (the answer covers only that), else None."""
    added = additions_open(request, grant)
    if added is None or grant.status != GrantStatus.ACTIVE:
        return None
    return added if added["hook_ids"] or added["event_types"] else None


def already_allowed(request: ConsentRequest, grant: Grant) -> bool:
    """An active grant the request asked nothing new of."""
    added = additions_open(request, grant)
    return (
        added is not None
        and grant.status == GrantStatus.ACTIVE
        and not (added["hook_ids"] or added["event_types"])
    )


def needs_answer(request: ConsentRequest, grant: Grant) -> bool:
    """Whether the consent form must carry an answer for this grant."""
    if grant.status not in OPEN_STATUSES:
        return False
    return not already_allowed(request, grant)


def approval_outcome(grant: Grant) -> Outcome:
    """How much of what the grant shows its state allows."""
    if grant.status != GrantStatus.ACTIVE:
        return Outcome.NONE
    whole = set(grant.approved_hook_ids) >= set(snapshot_hook_ids(grant.shown)) and set(
        grant.approved_event_types
    ) >= set(snapshot_event_types(grant.shown))
    return Outcome.ALL if whole else Outcome.SOME


def grant_outcome(request: ConsentRequest, grant: Grant) -> Outcome:
    """A grant's outcome for ``request``, read from its state. What a request
    adds to an active grant stays undecided here: only the user's answer
    tells (``consent_request_decide`` passes it)."""
    if already_allowed(request, grant):
        return Outcome.NOT_ASKED
    if additions_asked(request, grant) is not None:
        return Outcome.UNDECIDED
    if grant.status in (GrantStatus.PENDING, GrantStatus.SUSPENDED):
        return Outcome.UNDECIDED
    return approval_outcome(grant)


def request_status(outcomes: list[Outcome]) -> str | None:
    """The request's status from its grants' outcomes; None while any is undecided.

    Nothing asked, or everything allowed: approved; nothing allowed: denied;
    anything between: partially approved.
    """
    counted = [o for o in outcomes if o != Outcome.NOT_ASKED]
    if Outcome.UNDECIDED in counted:
        return None
    if all(o == Outcome.ALL for o in counted):
        return RequestStatus.APPROVED
    if all(o == Outcome.NONE for o in counted):
        return RequestStatus.DENIED
    return RequestStatus.PARTIALLY_APPROVED
