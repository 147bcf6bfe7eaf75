"""Reads of the subscriptions app, always scoped to the caller: a host's API
key, a signed-in user (their own), or a host's staff. Foreign or unknown ids
are a 404 before any work."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import CharField, Count, QuerySet, Value
from django.db.models.functions import Concat

from subscriptions.models import (
    LIVE_STATUSES,
    Mode,
    ReceivedEvent,
    RefreshAttempt,
    Subscription,
    TaskWatch,
)
from switchboard.errors import NotFound
from switchboard.models import HeldStream, Host, User
from switchboard.selectors.held_streams import held_streams_of


def _not_found(subscription_id: str) -> NotFound:
    return NotFound(
        f"no subscription {subscription_id!r} for this host",
        field="subscription_id",
        code="subscription_not_found",
    )


def subscriptions_for_host(
    *,
    host: Host,
    user_id: str | None = None,
    server_id: str | None = None,
    status: str | None = None,
    event: str | None = None,
) -> QuerySet[Subscription]:
    rows = Subscription.objects.filter(host=host).select_related("user", "server")
    if user_id is not None:
        rows = rows.filter(user_id=user_id)
    if server_id:
        rows = rows.filter(server_id=server_id)
    if status:
        rows = rows.filter(status=status)
    if event:
        rows = rows.filter(event_name=event)
    return rows


def subscription_get_for_host(*, host: Host, subscription_id: str) -> Subscription:
    sub = (
        Subscription.objects.select_related("user", "server")
        .filter(host=host, pk=subscription_id)
        .first()
    )
    if sub is None:
        raise _not_found(subscription_id)
    return sub


def subscriptions_of_user(*, user: User) -> QuerySet[Subscription]:
    return Subscription.objects.filter(user=user).select_related("server", "user")


def subscriptions_live_of_user(*, user: User, server_ids: list[str]) -> QuerySet[Subscription]:
    return Subscription.objects.filter(
        user=user, server_id__in=server_ids, status__in=LIVE_STATUSES
    ).order_by("event_name")


def subscription_get_for_viewer(*, viewer: User, subscription_id: str) -> Subscription:
    """The user's own subscription, or any of the host's for its staff."""
    rows = Subscription.objects.select_related("user", "server").filter(
        host_id=viewer.host_id, pk=subscription_id
    )
    if not viewer.is_host_staff:
        rows = rows.filter(user=viewer)
    sub = rows.first()
    if sub is None:
        raise _not_found(subscription_id)
    return sub


def may_see_payloads(*, viewer: User, subscription: Subscription) -> bool:
    """Payload bodies: the user concerned and auditors; not admins."""
    return viewer.id == subscription.user_id or viewer.role == "auditor"


def received_of(*, subscription: Subscription) -> QuerySet[ReceivedEvent]:
    return ReceivedEvent.objects.filter(subscription=subscription)


def refreshes_of(*, subscription: Subscription) -> QuerySet[RefreshAttempt]:
    return RefreshAttempt.objects.filter(subscription=subscription)


def with_stream_health(subscriptions: Iterable[Subscription]) -> list[Subscription]:
    """Each push or MCPE subscription gets ``.held_stream`` (the session
    worker's lease row with its health, or None), one query per kind."""
    subscriptions = list(subscriptions)
    wanted: dict[str, set[str]] = {}
    for sub in subscriptions:
        if sub.held_as is not None:
            wanted.setdefault(sub.held_as[0], set()).add(sub.held_as[1])
    held = {kind: held_streams_of(kind, sorted(items)) for kind, items in wanted.items()}
    for sub in subscriptions:
        where = sub.held_as
        sub.held_stream = held[where[0]].get(where[1]) if where else None  # type: ignore[attr-defined]
    return subscriptions


def push_streams_summary(*, host: Host) -> dict[str, object]:
    """For the staff list: this host's push streams as the session workers
    hold them — how many per state, and by how many workers."""
    keys = (
        Subscription.objects.filter(host=host, mode=Mode.PUSH, status__in=LIVE_STATUSES)
        .annotate(key=Concat(Value("push:"), "id", output_field=CharField()))
        .values("key")
    )
    rows = HeldStream.objects.filter(key__in=keys).exclude(state="ended")
    by_state = dict(rows.values_list("state").annotate(n=Count("key")).order_by())
    holders = rows.exclude(holder="").values("holder").distinct().count()
    return {"by_state": by_state, "total": sum(by_state.values()), "workers": holders}


def servers_of_streams(*, host: Host, streams: Iterable[str]) -> dict[str, str]:
    """Outbox streams (subscription ids) of this host -> their server's name."""
    return dict(
        Subscription.objects.filter(host=host, pk__in=list(streams)).values_list(
            "id", "server__name"
        )
    )


def refresh_lags(*, host: Host, limit: int = 20) -> list[tuple[Subscription, float]]:
    """Live webhook subscriptions with how long before their deadline they
    were last refreshed (``refresh_before`` minus the last refresh, in
    seconds; small or negative is trouble), tightest first."""
    rows = []
    subs = Subscription.objects.filter(
        host=host,
        mode=Mode.WEBHOOK,
        status__in=LIVE_STATUSES,
        refresh_before__isnull=False,
        last_refreshed_at__isnull=False,
    ).select_related("server")
    for sub in subs:
        if sub.refresh_before and sub.last_refreshed_at:  # both filtered non-null above
            rows.append((sub, (sub.refresh_before - sub.last_refreshed_at).total_seconds()))
    rows.sort(key=lambda pair: pair[1])
    return rows[:limit]


def task_watches_for_host(
    *, host: Host, user_id: str | None = None, server_id: str | None = None
) -> QuerySet[TaskWatch]:
    rows = TaskWatch.objects.filter(host=host).select_related(
        "user", "server", "subscription__user", "subscription__server"
    )
    if user_id is not None:
        rows = rows.filter(user_id=user_id)
    if server_id:
        rows = rows.filter(server_id=server_id)
    return rows


def task_watch_get_for_host(*, host: Host, watch_id: str) -> TaskWatch:
    watch = task_watches_for_host(host=host).filter(pk=watch_id).first()
    if watch is None:
        raise NotFound(
            f"no task {watch_id!r} for this host", field="task_watch_id", code="task_not_found"
        )
    return watch


def task_watches_of(*, subscription: Subscription) -> QuerySet[TaskWatch]:
    """The tasks a subscription was made for (its detail page)."""
    return TaskWatch.objects.filter(subscription=subscription).order_by("created_at")
