"""The user's connections, one per server on "Authorized servers": the account
the server acts as for them (their own credentials, given by the host, or the
host's), when it was last used and how many calls it got in the last 30 days.

Consent shows it as a part of each server's card (``consent.cards``); the
apps above count their own calls (hook firings, received events) through
``usage_counter_register``, so consent never imports them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Max
from django.utils import timezone

from consent.models import Injection, InjectionSource
from switchboard.models import User, UserServerCredential

USAGE_WINDOW = timedelta(days=30)

# (user, server ids, since) -> {server id: (calls since then, the last one)}
UsageCounter = Callable[[User, list[str], datetime], dict[str, tuple[int, datetime | None]]]

_counters: dict[str, UsageCounter] = {}


def usage_counter_register(name: str, counter: UsageCounter) -> None:
    _counters[name] = counter


@dataclass
class Connection:
    server_id: str
    own_credentials: bool  # the host gave the user's own credentials for this server
    credentials_since: datetime | None
    calls: int  # in the last USAGE_WINDOW
    last_call_at: datetime | None


def conversation_calls(
    user: User, server_ids: list[str], since: datetime
) -> dict[str, tuple[int, datetime | None]]:
    """User messages the console sent to each server (the fan-out's records)."""
    rows = (
        Injection.objects.filter(
            user=user,
            server_id__in=server_ids,
            source=InjectionSource.CONSOLE,
            created_at__gte=since,
        )
        .values_list("server_id")
        .annotate(calls=Count("id"), last=Max("created_at"))
        .order_by()
    )
    return {server_id: (calls, last) for server_id, calls, last in rows}


usage_counter_register("conversation", conversation_calls)


def connections_for_card(user: User, server_ids: list[str]) -> dict[str, list[Connection]]:
    """The card part's loader: one ``Connection`` per server."""
    since = timezone.now() - USAGE_WINDOW
    own = {
        c.server_id: c.created_at
        for c in UserServerCredential.objects.filter(user=user, server_id__in=server_ids)
    }
    totals: dict[str, list] = {sid: [0, None] for sid in server_ids}
    for counter in _counters.values():
        for server_id, (calls, last) in counter(user, server_ids, since).items():
            total = totals.setdefault(server_id, [0, None])
            total[0] += calls
            if last is not None and (total[1] is None or last > total[1]):
                total[1] = last
    return {
        sid: [
            Connection(
                server_id=sid,
                own_credentials=sid in own,
                credentials_since=own.get(sid),
                calls=totals[sid][0],
                last_call_at=totals[sid][1],
            )
        ]
        for sid in server_ids
    }
