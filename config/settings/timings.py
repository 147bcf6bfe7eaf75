"""Durations (seconds; every one can be compressed by tests) of sign-in, MCP
calls and server sync, consent, conversations, lifecycle hooks and thread
refresh; what is kept how long; the ledger's checkpoints, drain and export."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import SECRETS_DIR
from switchboard.env import (
    env_bool,
    env_int,
    env_seconds,
    env_str,
    generate_ed25519_seed,
    secret_from_env_or_file,
)

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

# Consent and conversation context (consent app).
CONSENT_REMEMBER_SHORT = env_seconds("CONSENT_REMEMBER_SHORT", 24 * 3600)  # "remember for 1 day"
CONSENT_REMEMBER_LONG = env_seconds("CONSENT_REMEMBER_LONG", 30 * 24 * 3600)  # "… for 30 days"
CONVERSATION_BUDGET = env_seconds("CONVERSATION_BUDGET", 0.5)  # per-host override in HostPolicy
CONVERSATION_TIMEOUTS_TO_DISABLE = env_int("CONVERSATION_TIMEOUTS_TO_DISABLE", 3, minimum=1)
# The part of the budget kept for answering once the fan-out stops waiting
# (serializing and writing the reply), on top of the measured time its
# consent check and records take (consent.services.conversation).
CONVERSATION_REPLY_RESERVE = env_seconds("CONVERSATION_REPLY_RESERVE", 0.003)
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
