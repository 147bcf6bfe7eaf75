"""The background workers: Celery, beat (its tick and its leader lock), and
the periodic tasks beat runs."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import VAR_DIR
from config.settings.events import HOST_DELIVERY_SWEEP_EVERY
from config.settings.stores import REDIS_URL
from switchboard.env import env_int, env_seconds, env_str

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 300, minimum=1)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 240, minimum=1)
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE") or "switchboard"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# Redis hands a task that no worker acknowledged within this many seconds to
# a worker again, and a countdown task waits unacknowledged in the worker that
# took it: one whose countdown passes this is received again and again. That
# is harmless here: countdowns stay short (≤ *_COUNTDOWN_MAX, 60 s; long
# waits live in rows) and every task claims its row before it acts, so a
# redelivered copy does nothing (tests/reliability/test_visibility_timeout.py
# runs a worker with 1 s).
CELERY_VISIBILITY_TIMEOUT = env_seconds("CELERY_VISIBILITY_TIMEOUT", 3600)
if CELERY_VISIBILITY_TIMEOUT <= 0:
    raise ImproperlyConfigured("CELERY_VISIBILITY_TIMEOUT must be more than 0 seconds")
# kombu keeps every worker's unacknowledged tasks in one index per Redis
# database, and each worker restores whatever in it is older than its own
# timeout: another queue's index, so a deployment (or test run) with a short
# timeout never hands out the tasks of another on the same Redis. The
# default queue keeps kombu's key names (what existing deployments use).
_unacked = "" if CELERY_TASK_DEFAULT_QUEUE == "switchboard" else f"{CELERY_TASK_DEFAULT_QUEUE}:"
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    "unacked_key": f"{_unacked}unacked",
    "unacked_index_key": f"{_unacked}unacked_index",
    "unacked_mutex_key": f"{_unacked}unacked_mutex",
}
# kombu looks for expired tasks about every 100 s (every 10th 10 s tick);
# a timeout under 400 s is looked at four times per timeout instead.
if CELERY_VISIBILITY_TIMEOUT < 400:
    CELERY_BROKER_TRANSPORT_OPTIONS |= {
        "unacked_restore_interval": max(CELERY_VISIBILITY_TIMEOUT / 4, 0.5),
        "unacked_restore_throttle": 1,
    }

BEAT_TICK = env_seconds("BEAT_TICK", 10)
# One beat ticks at a time (config/beat.py): the schedule lives in Redis and
# only the beat holding its lock sends; another beat started beside it waits
# for the lock and takes over once a dead leader's lock runs out. Beat wakes
# at least once a loop interval and renews the lock each time, so the lock
# must outlast a few of them (a standby polls for it as often).
CELERY_BEAT_SCHEDULER = "config.beat:LeaderScheduler"
CELERY_BEAT_MAX_LOOP_INTERVAL = max(1.0, BEAT_TICK)
BEAT_LOCK_TIMEOUT = env_seconds("BEAT_LOCK_TIMEOUT", 5 * CELERY_BEAT_MAX_LOOP_INTERVAL)
if BEAT_LOCK_TIMEOUT < 2 * CELERY_BEAT_MAX_LOOP_INTERVAL:
    raise ImproperlyConfigured(
        f"BEAT_LOCK_TIMEOUT ({BEAT_LOCK_TIMEOUT:g} s) must be at least twice beat's loop "
        f"interval (max(1, BEAT_TICK) = {CELERY_BEAT_MAX_LOOP_INTERVAL:g} s), or the leader "
        "loses its lock between two renewals"
    )

# Beat runs each of these every BEAT_TICK seconds (or at the interval given
# beside it); they find due work in the DB.
PERIODIC_TASKS: dict[str, str | tuple[str, float]] = {
    "hooks-run-due-refreshes": "hooks.run_due_refreshes",
    "hooks-purge-expired": "hooks.purge_expired",
    "ledger-purge-payloads": "switchboard.purge_ledger_payloads",
    "purge-event-payloads": "subscriptions.purge_event_payloads",
    "purge-delivery-bodies": "outbox.purge_delivery_bodies",
    "ledger-export-files": "switchboard.export_ledger_files",
    "run-audit-drains": "switchboard.run_audit_drains",
    "ledger-issue-checkpoints": "switchboard.issue_ledger_checkpoints",
    "hooks-sweep-records": "hooks.sweep_records",
    "expire-grants": "consent.expire_grants",
    "expire-consent-requests": "consent.expire_requests",
    "purge-injected-text": "consent.purge_injections",
    "sync-due-servers": "switchboard.sync_due_servers",
    "refresh-due-subscriptions": "subscriptions.refresh_due",
    "poll-due-subscriptions": "subscriptions.poll_due",
    "check-due-task-watches": "subscriptions.check_due_tasks",
    "unsubscribe-due-subscriptions": "subscriptions.unsubscribe_due",
    "expire-due-subscriptions": "subscriptions.expire_due",
    "send-due-digests": "subscriptions.digest_due",
    "watch-webhook-receiver": "subscriptions.watch_receiver",
    # Its own, shorter interval: a delivery whose worker died is found fast.
    "sweep-host-deliveries": ("outbox.sweep_host_deliveries", HOST_DELIVERY_SWEEP_EVERY),
}
