"""Django settings, read from the environment (see README's configuration table)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from switchboard.env import (
    env_bool,
    env_int,
    env_list,
    env_seconds,
    env_str,
    generate_fernet_key,
    generate_secret_key,
    secret_from_env_or_file,
)
from switchboard.redis_resolve import resolve_redis_url

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

DEBUG = env_bool("DEBUG", False)
PUBLIC_BASE_URL = (env_str("PUBLIC_BASE_URL") or "http://127.0.0.1:8000").rstrip("/")
_public = urlsplit(PUBLIC_BASE_URL)
if _public.scheme not in {"http", "https"} or not _public.hostname:
    raise ImproperlyConfigured(f"PUBLIC_BASE_URL must be an http(s) URL; got {PUBLIC_BASE_URL!r}")

# Outbound connections (MCP servers, host endpoints, callback URLs) go only to
# public https addresses unless this is on (development, demo, tests).
ALLOW_PRIVATE_TARGETS = env_bool("ALLOW_PRIVATE_TARGETS", False)
if _public.scheme == "http" and not ALLOW_PRIVATE_TARGETS:
    raise ImproperlyConfigured(
        "PUBLIC_BASE_URL is http://, which MCP servers will refuse for callbacks; "
        "use https:// or set ALLOW_PRIVATE_TARGETS=1 for development"
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [_public.hostname, "127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = [f"{_public.scheme}://{_public.netloc}"]

# Cookies and HSTS follow the scheme people actually use, so a non-DEBUG run
# on http://127.0.0.1 still signs people in.
_HTTPS = _public.scheme == "https"
SESSION_COOKIE_SECURE = _HTTPS
CSRF_COOKIE_SECURE = _HTTPS
SECURE_HSTS_SECONDS = 31_536_000 if _HTTPS else 0
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if _HTTPS else None
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
    "switchboard",
    "consent",
    "subscriptions",
    "hooks",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "switchboard.urls"
ASGI_APPLICATION = "switchboard.asgi.application"
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
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
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

REDIS_URL, REDIS_ORIGIN = resolve_redis_url(
    configured=env_str("REDIS_URL"),
    embedded_port=env_int("EMBEDDED_REDIS_PORT", 6391, minimum=1),
    workdir=VAR_DIR / "redis",
)

CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
}
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL], "prefix": env_str("CHANNELS_PREFIX") or "swb"},
    }
}

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

# --- Durations (seconds; every one can be compressed by tests) ----------------

LOGIN_LINK_TTL = min(env_seconds("LOGIN_LINK_TTL", 600), 600)
API_KEY_LAST_USED_RESOLUTION = env_seconds("API_KEY_LAST_USED_RESOLUTION", 60)
CONSENT_REQUEST_TTL = env_seconds("CONSENT_REQUEST_TTL", 7 * 24 * 3600)
MCP_CONNECT_TIMEOUT = env_seconds("MCP_CONNECT_TIMEOUT", 5)
MCP_CALL_TIMEOUT = env_seconds("MCP_CALL_TIMEOUT", 10)
SERVER_RESYNC_INTERVAL = env_seconds("SERVER_RESYNC_INTERVAL", 3600)
SERVER_RETRY_BASE = env_seconds("SERVER_RETRY_BASE", 30)
SERVER_RETRY_MAX = env_seconds("SERVER_RETRY_MAX", 3600)
SERVER_SYNC_DEADLINE = env_seconds("SERVER_SYNC_DEADLINE", 15)
BEAT_TICK = env_seconds("BEAT_TICK", 10)

# --- Limits -----------------------------------------------------------------

API_PAGE_SIZE_DEFAULT = 50
API_PAGE_SIZE_MAX = 200
AUDIT_EXPORT_CHUNK = 500

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

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL") or "INFO"},
    "loggers": {"httpx": {"level": "WARNING"}, "httpx2": {"level": "WARNING"}},
}

# Beat runs each of these every BEAT_TICK seconds; they find due work in the DB.
PERIODIC_TASKS = {
    "expire-grants": "consent.expire_grants",
    "sync-due-servers": "switchboard.sync_due_servers",
}
