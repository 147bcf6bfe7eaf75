"""The session worker's loop: keep every wanted stream open, exactly once.

One asyncio process (``manage.py session_worker``); several may run. Each
stream it holds is one task running its kind's ``hold``:

- **What to hold.** Every SESSION_WORKER_RECONCILE seconds it asks each
  registered kind which ids it wants, and on a Redis wake-up it asks about
  the one key that changed. It cancels tasks nobody wants any more (within
  about a second of the change being committed) and starts tasks for wanted
  streams whose lease it can take.
- **Exactly one holder.** A stream is held only under its lease row
  (``leases``): taken with a conditional UPDATE, renewed at every reconcile,
  released when let go. A worker that loses a lease (it stalled past it and
  another took over) cancels its task. A worker that dies stops renewing;
  another takes the stream over once the lease has run out.
- **Reconnects.** A hold that raises or says "reconnect" is retried after
  an exponential backoff with equal jitter (SESSION_WORKER_BACKOFF_BASE
  doubling to _MAX); a stream that stayed up for a minute starts again from
  the base. "done" ends it and releases the lease.
- **Short pauses.** What it holds is frozen out of the garbage collector's
  scans once it has settled (``heap``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import socket
import uuid

import redis.asyncio as aioredis
from django.conf import settings

from switchboard import metrics
from switchboard.backoff import backoff
from switchboard.mcp import McpCallError
from switchboard.sessions import leases
from switchboard.sessions.db import in_db_thread
from switchboard.sessions.heap import HeapKeeper
from switchboard.sessions.registry import HeldKind, held_kinds, split_key, stream_key
from switchboard.sessions.report import StreamReport
from switchboard.sessions.shared import SharedSessions

log = logging.getLogger(__name__)

# A stream that stayed connected this long counts as healthy again: the next
# failure backs off from the base.
_HEALTHY_AFTER = 60.0


def reconnect_wait(failures: int) -> float:
    """Seconds before reconnecting after ``failures`` failures in a row."""
    return backoff(
        failures,
        base=settings.SESSION_WORKER_BACKOFF_BASE,
        cap=settings.SESSION_WORKER_BACKOFF_MAX,
        jitter=True,
    )


def _describe(exc: BaseException) -> str:
    if isinstance(exc, McpCallError):
        return f"{exc.category}: {exc.message}"
    return f"{type(exc).__name__}: {exc}"


class SessionWorker:
    def __init__(self, *, kinds: dict[str, HeldKind] | None = None) -> None:
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.kinds = kinds if kinds is not None else held_kinds()
        self.tasks: dict[str, asyncio.Task[None]] = {}
        # Streams that had a frame since the last renewal (StreamReport.frame).
        self.framed: set[str] = set()
        # The report of each running hold, to tell it of changes to its item.
        self._reports: dict[str, StreamReport] = {}
        self._wake = asyncio.Event()
        self._changed: set[str] = set()
        self.sessions = SharedSessions()
        self._heap = HeapKeeper(full_every=settings.SESSION_WORKER_GC_FULL)

    # --- the main loop ----------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        log.info("session worker %s holding %s", self.holder, ", ".join(sorted(self.kinds)))
        listener = asyncio.create_task(self._listen_for_changes(stop))
        try:
            while not stop.is_set():
                try:
                    await self._reconcile()
                except Exception:
                    log.exception("session worker reconcile failed; trying again")
                self._heap.settle(len(self.tasks))
                self._count_held()
                await self._sleep_until_change(stop)
                await self._apply_changes()
        finally:
            listener.cancel()
            await self._let_go_of_everything()

    def _count_held(self) -> None:
        """The gauge of held streams, by kind (summed over live workers)."""
        held = dict.fromkeys(self.kinds, 0)
        for key in self.tasks:
            kind = split_key(key)[0]
            held[kind] = held.get(kind, 0) + 1
        for kind, count in held.items():
            metrics.held_streams.labels(kind=kind).set(count)
        metrics.seen("sessions")

    async def _sleep_until_change(self, stop: asyncio.Event) -> None:
        stopping = asyncio.create_task(stop.wait())
        woken = asyncio.create_task(self._wake.wait())
        try:
            await asyncio.wait(
                {stopping, woken},
                timeout=settings.SESSION_WORKER_RECONCILE,
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            stopping.cancel()
            woken.cancel()
        self._wake.clear()

    async def _reconcile(self) -> None:
        """Hold what is wanted, drop what is not, renew what we hold."""
        self._reap_finished()
        wanted: dict[str, HeldKind] = {}
        for kind in self.kinds.values():
            for item_id in await in_db_thread(lambda k=kind: list(k.wanted()))():
                wanted[stream_key(kind.name, item_id)] = kind
        for key in [k for k in self.tasks if k not in wanted]:
            self._drop(key)
        framed = set(self.framed)
        self.framed.clear()
        kept = await in_db_thread(leases.leases_renew)(
            keys=list(self.tasks), holder=self.holder, framed=framed
        )
        for key in [k for k in self.tasks if k not in kept]:
            log.warning("lost the lease on %s; another worker holds it now", key)
            self.tasks.pop(key).cancel()
            self._reports.pop(key, None)
        for key, kind in wanted.items():
            if key not in self.tasks:
                await self._try_hold(key, kind)

    async def _apply_changes(self) -> None:
        changed, self._changed = self._changed, set()
        for key in changed:
            kind = self.kinds.get(split_key(key)[0])
            if kind is None:
                continue
            try:
                wanted = await in_db_thread(kind.still_wanted)(split_key(key)[1])
            except Exception:
                log.exception("could not check %s", key)
                continue
            if not wanted and key in self.tasks:
                self._drop(key)
                await in_db_thread(leases.lease_release)(key=key, holder=self.holder, ended=True)
                if kind.health_changed is not None:
                    await in_db_thread(kind.health_changed)(split_key(key)[1])
            elif wanted and key not in self.tasks:
                await self._try_hold(key, kind)
            elif wanted and key in self._reports:
                # Still wanted and held: the hold may act on what changed
                # (e.g. a subscription on a held MCPE session paused).
                self._reports[key].changed.set()

    async def _try_hold(self, key: str, kind: HeldKind) -> None:
        taken = await in_db_thread(leases.lease_take)(key=key, kind=kind.name, holder=self.holder)
        if taken:
            self.tasks[key] = asyncio.create_task(self._hold(key, kind), name=key)

    def _drop(self, key: str) -> None:
        task = self.tasks.pop(key, None)
        self._reports.pop(key, None)
        if task is not None:
            log.info("closing %s: no longer wanted", key)
            task.cancel()

    def _reap_finished(self) -> None:
        for key in [k for k, t in self.tasks.items() if t.done()]:
            self.tasks.pop(key)
            self._reports.pop(key, None)

    async def _let_go_of_everything(self) -> None:
        tasks = list(self.tasks.items())
        self.tasks.clear()
        for _, task in tasks:
            task.cancel()
        for _, task in tasks:
            with contextlib.suppress(BaseException):
                await task
        for key, _ in tasks:
            with contextlib.suppress(Exception):
                await in_db_thread(leases.lease_release)(key=key, holder=self.holder, ended=False)
        await self.sessions.close()

    # --- one stream ---------------------------------------------------------------

    async def _hold(self, key: str, kind: HeldKind) -> None:
        item_id = split_key(key)[1]
        changed = None
        if kind.health_changed is not None:
            changed = functools.partial(kind.health_changed, item_id)
        failures = 0
        while True:
            report = StreamReport(
                key=key,
                holder=self.holder,
                sessions=self.sessions,
                framed=self.framed,
                health_changed=changed,
            )
            self._reports[key] = report
            try:
                outcome = await kind.hold(item_id, report)
                error = "the stream closed"
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                outcome = "reconnect"
                error = _describe(exc)
                if not isinstance(exc, McpCallError):
                    log.exception("holding %s failed", key)
            if outcome == "done":
                await in_db_thread(leases.lease_release)(key=key, holder=self.holder, ended=True)
                await report.announce()
                self.tasks.pop(key, None)
                self._reports.pop(key, None)
                return
            failures = 1 if report.connected_for() >= _HEALTHY_AFTER else failures + 1
            log.info("%s: %s; reconnecting (attempt %d)", key, error, failures)
            await in_db_thread(leases.stream_failed)(key=key, holder=self.holder, error=error)
            await report.announce()
            await asyncio.sleep(reconnect_wait(failures))
            if not await in_db_thread(kind.still_wanted)(item_id):
                await in_db_thread(leases.lease_release)(key=key, holder=self.holder, ended=True)
                await report.announce()
                self.tasks.pop(key, None)
                self._reports.pop(key, None)
                return

    # --- wake-ups -------------------------------------------------------------------

    async def _listen_for_changes(self, stop: asyncio.Event) -> None:
        """Keys published by ``held_stream_changed``; reconnects to Redis forever."""
        failures = 0
        while not stop.is_set():
            client = aioredis.Redis.from_url(settings.REDIS_URL)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.subscribe(settings.SESSION_WORKER_CHANNEL)
                    failures = 0
                    async for message in pubsub.listen():
                        if message.get("type") != "message":
                            continue
                        data = message.get("data")
                        key = data.decode() if isinstance(data, bytes) else str(data)
                        self._changed.add(key)
                        self._wake.set()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                failures += 1
                log.warning("session worker lost Redis (%s); listening again", exc)
                await asyncio.sleep(reconnect_wait(failures))
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()
