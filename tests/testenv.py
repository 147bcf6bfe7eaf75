"""Loaded as a pytest plugin (``-p tests.testenv``) before pytest-django reads
the settings: the test environment must be in place first.

Durations are compressed here so that time-based behaviour is testable across
processes (the web server and worker inherit the same values).
"""

import os
import uuid

os.environ.setdefault("ALLOW_PRIVATE_TARGETS", "1")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Each run gets its own Celery queue, channel-layer and cache prefix, so a console
# running on the same Redis never steals the tests' tasks or messages.
_RUN = uuid.uuid4().hex[:8]
os.environ.setdefault("CELERY_QUEUE", f"test-{_RUN}")
os.environ.setdefault("CHANNELS_PREFIX", f"swbtest{_RUN}")
os.environ.setdefault("CACHE_KEY_PREFIX", f"swbtest{_RUN}")
os.environ.setdefault("TEST_DB_SUFFIX", _RUN)
# Under pytest-xdist (TEST_WORKERS=2 make test-fast) each worker inherits the
# values above from the controller: each gets a database, queue and prefix of
# its own, so the workers run side by side as two runs would.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
if _WORKER and not os.environ.get("SWITCHBOARD_TEST_WORKER"):
    os.environ["SWITCHBOARD_TEST_WORKER"] = _WORKER
    for _name in ("CELERY_QUEUE", "CHANNELS_PREFIX", "CACHE_KEY_PREFIX", "TEST_DB_SUFFIX"):
        os.environ[_name] = f"{os.environ[_name]}{_WORKER}"
os.environ.setdefault("API_KEY_LAST_USED_RESOLUTION", "0")
os.environ.setdefault("BEAT_TICK", "0.5")
# Subscriptions and host forwarding: retries and recovery in (sub)seconds.
os.environ.setdefault("SUBSCRIPTION_RETRY_BASE", "0.3")
os.environ.setdefault("SUBSCRIPTION_RETRY_MAX", "2")
os.environ.setdefault("SUBSCRIPTION_PULL_SETTLE", "0")
os.environ.setdefault("HOST_DELIVERY_RETRY_SCHEDULE", "0.3,0.6,1,2,4")
os.environ.setdefault("HOST_DELIVERY_TIMEOUT", "2")
os.environ.setdefault("HOST_DELIVERY_LEASE_MARGIN", "1")
os.environ.setdefault("HOST_DELIVERY_REQUEUE_AFTER", "2")
os.environ.setdefault("HOST_DELIVERY_SWEEP_EVERY", "0.5")
# The session worker: leases and backoff short enough to watch a takeover.
os.environ.setdefault("SESSION_WORKER_LEASE", "3")
os.environ.setdefault("SESSION_WORKER_RECONCILE", "1")
os.environ.setdefault("SESSION_WORKER_BACKOFF_BASE", "0.2")
os.environ.setdefault("SESSION_WORKER_BACKOFF_MAX", "2")
# Push: the session's reference server beats every 0.5 s; 3 s of silence is dead.
os.environ.setdefault("PUSH_IDLE_TIMEOUT", "3")
# MCPE: a lost session is noticed within a second.
os.environ.setdefault("MCPE_CHECK_INTERVAL", "1")
# Poll: the reference server's 1 s nextPollMs, floored at 0.2 s for speed.
os.environ.setdefault("SUBSCRIPTION_POLL_FLOOR", "0.2")
# Task event sources are off by default (a draft, docs/events-client.md §8); the tests' processes
# run with them on so case 49 runs end to end. Tests of the off state turn
# them off in-process; tests/core/test_settings.py checks the default.
os.environ.setdefault("TASK_EVENT_SOURCES", "1")
# Beat would sign a checkpoint of every host's ledger as it grows and send it
# to the host endpoint as audit.checkpoint: the live suites count their hosts'
# deliveries exactly. The transparency-log tests issue checkpoints themselves.
os.environ.setdefault("AUDIT_CHECKPOINT_BEAT", "0")
# The Playwright sync API runs an event loop in the test thread; ORM calls the
# tests make in between are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
# The settings only read REDIS_URL: with none set, the tests use the local
# Redis, else start the embedded one (switchboard/redis_resolve.py), as
# ``make run`` does, before the settings are read.
if not os.environ.get("REDIS_URL"):
    from pathlib import Path

    from switchboard.redis_resolve import resolve_redis_url

    _var = os.environ.get("SWITCHBOARD_VAR_DIR") or Path(__file__).resolve().parents[1] / "var"
    os.environ["REDIS_URL"], _ = resolve_redis_url(
        configured=None,
        embedded_port=int(os.environ.get("EMBEDDED_REDIS_PORT") or 6391),
        workdir=Path(_var) / "redis",
    )
