"""Where things live, the secrets, development or production, the public
address, and the security headers and cookies that follow from it."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from switchboard.env import (
    env_bool,
    env_list,
    env_str,
    generate_fernet_key,
    generate_secret_key,
    secret_from_env_or_file,
)

BASE_DIR = Path(__file__).resolve().parent.parent.parent
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
