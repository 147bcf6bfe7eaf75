"""Beat's scheduler: one active beat per deployment (``celery -A config beat``).

RedBeat (``celery-redbeat``) keeps the schedule in Redis and takes a lock
before beat's first tick; a second beat blocks on that lock as a standby and
becomes the leader when the lock is released (a clean stop) or runs out
(``BEAT_LOCK_TIMEOUT`` after a killed leader's last renewal).

What RedBeat does not do is survive its own pause: a leader that misses its
renewals (a stopped container, a long GC pause, a starved CPU) finds the lock
gone at its next tick and raises, which ends the beat process. Here it steps
down to standby instead: it waits for the lock like any standby, so the
process never needs a restart and two beats never tick at once.
"""

from __future__ import annotations

from typing import Any

from celery.utils.log import get_logger
from django.conf import settings
from redbeat import RedBeatScheduler
from redis.exceptions import LockError

logger = get_logger("celery.beat")


class LeaderScheduler(RedBeatScheduler):
    def __init__(self, app: Any, **kwargs: Any) -> None:
        # RedBeat reads its settings un-namespaced (``redbeat_*``), which
        # Django's CELERY_ settings cannot spell.
        app.conf.update(
            redbeat_redis_url=settings.REDIS_URL,
            # Per queue, like the tasks: deployments (and test runs) that
            # share one Redis each elect their own beat.
            redbeat_key_prefix=f"redbeat:{settings.CELERY_TASK_DEFAULT_QUEUE}:",
            redbeat_lock_timeout=settings.BEAT_LOCK_TIMEOUT,
        )
        super().__init__(app, **kwargs)

    def tick(self, *args: Any, **kwargs: Any) -> float:
        try:
            return super().tick(*args, **kwargs)
        except LockError:
            # The lock was renewed before anything was sent, so nothing of this
            # tick went out: someone else may be leading by now.
            logger.warning("beat: Lost the lock (renewals missed); standing by")
            self.lock.acquire()
            logger.info("beat: Acquired lock")
            return 0
