"""Django's wiring: the apps, middleware, URLs, templates, static files,
language and time zone, and logging."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import BASE_DIR, DEBUG, VAR_DIR
from switchboard.env import env_str

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
# Requests are routed by path to a handler with only the middleware they
# use (config/handlers.py): /static/ gets the whole list; pages all of it
# but STATIC_MIDDLEWARE; the host API (/api/v1/, Bearer keys only) all of it
# but STATIC_MIDDLEWARE and PAGE_MIDDLEWARE.
#
# WhiteNoise is sync-only: in the page and API chains it cost every request
# a thread hop under ASGI, and only /static/ needs it.
STATIC_MIDDLEWARE = ["whitenoise.middleware.WhiteNoiseMiddleware"]
# What only pages use. The API keeps the rest: its JSON errors and the NUL
# check; SecurityMiddleware (HSTS, nosniff so a JSON answer is never read
# as HTML, the referrer policy, the HTTPS redirect); CommonMiddleware (the
# Host header checked against ALLOWED_HOSTS, refused user agents,
# Content-Length); X-Frame-Options: DENY (cheap, and no answer of ours is
# meant for a frame).
PAGE_MIDDLEWARE = [
    # A policy for what a rendered document may load: a JSON answer (nosniff)
    # is never rendered, and frames are refused by X-Frame-Options.
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # No API route reads request.session or request.user: the key is the
    # caller (switchboard/api/auth.py), so a session cookie means nothing there.
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # CSRF guards what a browser sends by itself (the session cookie); it
    # never sends a Bearer key by itself. ninja's routes are CSRF-exempt anyway.
    "django.middleware.csrf.CsrfViewMiddleware",
    # Messages are shown by the next page; the API renders none.
    "django.contrib.messages.middleware.MessageMiddleware",
    # request.htmx picks a page's partial answer.
    "django_htmx.middleware.HtmxMiddleware",
    # NotFound in a page view becomes the 404 page; the API maps it itself
    # (switchboard/api/root.py) before any middleware sees it.
    "switchboard.views.errors.NotFoundAsPage404",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"
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
