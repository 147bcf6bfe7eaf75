"""Event subscriptions and their delivery: subscription timings, delivery
modes, task event sources, the session worker, MCPE, the webhook receiver,
and forwarding to the host's endpoint (every duration in seconds)."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from switchboard.env import env_bool, env_int, env_list, env_seconds, env_str

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
