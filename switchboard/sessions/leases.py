"""The lease rows (``HeldStream``): taking, renewing, releasing, health.

Synchronous database functions; the async worker calls them through
``sync_to_async``. Every write is one conditional UPDATE, so two workers
racing for one stream cannot both win.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from switchboard.models import HeldStream, HeldStreamState


def _lease_end():
    return timezone.now() + timedelta(seconds=settings.SESSION_WORKER_LEASE)


def lease_take(*, key: str, kind: str, holder: str) -> bool:
    """Hold ``key`` for ``holder`` if nobody else holds it (or their lease ran out)."""
    now = timezone.now()
    if not HeldStream.objects.filter(pk=key).exists():
        try:
            with transaction.atomic():
                HeldStream.objects.create(
                    key=key, kind=kind, holder=holder, lease_until=_lease_end()
                )
            return True
        except IntegrityError:
            pass  # another worker created it first; compete below
    free = Q(holder=holder) | Q(holder="") | Q(lease_until__isnull=True) | Q(lease_until__lt=now)
    taken = (
        HeldStream.objects.filter(pk=key)
        .filter(free)
        .update(
            holder=holder,
            lease_until=_lease_end(),
            state=HeldStreamState.CONNECTING,
        )
    )
    return taken == 1


def leases_renew(*, keys: Iterable[str], holder: str, framed: Iterable[str] = ()) -> set[str]:
    """Extend every lease ``holder`` still has among ``keys``; returns those it
    kept. ``framed``: streams that had a frame since the last call; their
    ``last_frame_at`` becomes now (so it is exact to a renewal interval, in
    one statement however many streams are busy)."""
    keys = list(keys)
    if not keys:
        return set()
    HeldStream.objects.filter(pk__in=keys, holder=holder).update(lease_until=_lease_end())
    kept = set(HeldStream.objects.filter(pk__in=keys, holder=holder).values_list("pk", flat=True))
    seen = [key for key in framed if key in kept]
    if seen:
        HeldStream.objects.filter(pk__in=seen, holder=holder).update(last_frame_at=timezone.now())
    return kept


def lease_release(*, key: str, holder: str, ended: bool) -> None:
    """Let go of ``key`` (shutting down, or nobody wants it: ``ended``)."""
    HeldStream.objects.filter(pk=key, holder=holder).update(
        holder="",
        lease_until=None,
        connected_since=None,
        state=HeldStreamState.ENDED if ended else HeldStreamState.WAITING,
    )


def stream_connected(*, key: str, holder: str) -> None:
    """``last_error`` stays: it says why the stream last had to reconnect."""
    now = timezone.now()
    HeldStream.objects.filter(pk=key, holder=holder).update(
        state=HeldStreamState.CONNECTED, connected_since=now, last_frame_at=now
    )


def stream_failed(*, key: str, holder: str, error: str) -> None:
    """One attempt ended and another will follow after a backoff."""
    HeldStream.objects.filter(pk=key, holder=holder).update(
        state=HeldStreamState.WAITING,
        connected_since=None,
        reconnects=F("reconnects") + 1,
        last_error=error[:300],
    )
