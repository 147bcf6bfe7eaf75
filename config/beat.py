"""Beat's scheduler: one active beat per deployment (``celery -A config beat``).

RedBeat (``celery-redbeat``) keeps the schedule in Redis and takes a lock
before beat's first tick; a second beat blocks on that lock as a standby and
becomes the leader when the lock is released (a clean stop) or runs out
(``BEAT_LOCK_TIMEOUT`` after a killed leader's last renewal).

What RedBeat does not do is survive its own pause: a leader that misses its
renewals (a stopped container, a long GC pause, a starved CPU) finds the lock
gone at its next tick and raises, which ends the beat process; so does a
Redis restart. Here a leader that lost its lock steps down to standby (it
waits for the lock like any standby, then writes the schedule again, which an
emptied Redis lost), and an unreachable Redis is waited for: the process
never needs a restart and two beats never tick at once.
"""

from __future__ import annotations

from typing import Any

from celery.utils.log import get_logger
from django.conf import settings
from redbeat import RedBeatScheduler
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import LockError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = get_logger("celery.beat")


# While Redis is unreachable a beat tries again this often (seconds).
REDIS_RETRY = 1.0


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
        self._standing_by = False
        super().__init__(app, **kwargs)

    def tick(self, *args: Any, **kwargs: Any) -> float:
        try:
            if self._standing_by:
                self._lead_again()
            return super().tick(*args, **kwargs)
        except LockError:
            # The lock was renewed before anything was sent, so nothing of this
            # tick went out: someone else may be leading by now.
            logger.warning("beat: Lost the lock (renewals missed); standing by")
            self._standing_by = True
            return 0
        except (RedisConnectionError, RedisTimeoutError) as exc:
            # A Redis restart must not end beat (the process would need a
            # supervisor to come back); it waits and tries again.
            logger.warning("beat: Redis unreachable (%s); trying again in %ss", exc, REDIS_RETRY)
            return REDIS_RETRY

    def _lead_again(self) -> None:
        self.lock.acquire()
        logger.info("beat: Acquired lock")
        # A Redis that restarted empty lost the schedule with the lock; it is
        # written again (entries still there keep their last run).
        self.setup_schedule()
        self._standing_by = False
