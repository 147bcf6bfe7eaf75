"""A Celery worker child keeps its PostgreSQL connection pool between tasks.

Celery's Django fixup (5.5 and later) closes Django's connection pool before
and after every task in a prefork child (celery/celery#10554; the fix is
proposed upstream in celery/celery#10555). Each task then opened a new pool
and its ``min_size`` connections: two or three new PostgreSQL backends per
task, some 90 a second with beat ticking every 0.5 s, and a connection's
cost (~5 ms here) on every task in production.

Closing the pool is needed once, in a child just forked: the pool it
inherited is the parent's, its threads did not survive the fork. Celery
still does that (``on_worker_process_init``). Between tasks the connection
goes back to the pool as at the end of a web request
(``close_if_unusable_or_obsolete``): a broken one is closed, so the pool
replaces it, and the pool itself stays. A child closes its pool when it
exits, so PostgreSQL sees its connections end cleanly.
"""

from __future__ import annotations

from typing import Any

from celery import Celery
from celery.fixups.django import DjangoFixup, DjangoWorkerFixup
from celery.signals import celeryd_init, worker_process_shutdown


class PoolKeepingWorkerFixup(DjangoWorkerFixup):
    def close_database(self, **kwargs: Any) -> None:
        # Sent for task_prerun, task_postrun and beat_embedded_init.
        for conn in self._db.connections.all(initialized_only=True):
            conn.close_if_unusable_or_obsolete()

    def install(self) -> PoolKeepingWorkerFixup:
        super().install()
        worker_process_shutdown.connect(self.on_worker_process_shutdown, weak=False)
        return self

    def on_worker_process_shutdown(self, **kwargs: Any) -> None:
        self._close_database()  # the connections, then the pool


def install(app: Celery) -> None:
    """Put the pool-keeping worker fixup in place of Celery's when a worker
    starts (``celeryd_init``, before the fixup installs its signal handlers at
    ``worker_init``). Not at import: making a worker fixup reads the app's
    configuration, and so Django's settings, which importing the Celery app
    must not do (a process may set its database up first: bench/stack.py)."""
    fixups = [fixup for fixup in app._fixups or () if isinstance(fixup, DjangoFixup)]
    if not fixups:
        raise RuntimeError("Celery's Django fixup is not installed (DJANGO_SETTINGS_MODULE unset?)")

    def keep_pools(**kwargs: Any) -> None:
        for fixup in fixups:
            fixup.worker_fixup = PoolKeepingWorkerFixup(app)

    celeryd_init.connect(keep_pools, weak=False)
