"""Django's HTTP handlers, one per kind of request, each with only the
middleware that kind uses; ``config/asgi.py`` and ``config/wsgi.py`` route to
them by path (``kind_of``).

- **static** (``STATIC_URL``): the whole ``MIDDLEWARE`` list, as before:
  WhiteNoise answers near its top, with the headers above it; a miss goes
  on down the page chain to its 404.
- **api** (``/api/v1/…`` except the docs page and the schema): the host
  API, Bearer keys only. It skips ``PAGE_MIDDLEWARE`` and
  ``STATIC_MIDDLEWARE`` (``config/settings/wiring.py`` says why for each).
- **pages**: everything else (pages, htmx posts, sign-in, SCIM, the admin,
  the probes and the metrics): every middleware but WhiteNoise.

Why: WhiteNoise is sync-only and sat near the top of an otherwise
async-capable chain, so under ASGI every request hopped to a thread for it,
back to the event loop for the rest and to a thread again for the view
(``bench/README.md``, *Where the time goes*). Off the page and API chains,
one hop remains; the API also sheds the session, CSRF, messages and CSP
work no route of it uses.

**The rule is the path, never a header.** A page stays a page whatever a
request carries, so ``Authorization: Bearer …`` on a session-authenticated
POST cannot take it past CSRF. The API prefix may skip sessions and CSRF
because no route under it reads the session: ninja authenticates every one
with the API key (``HostApi``'s ``auth``, which no route overrides), so a
cookie sent there authenticates nothing and CSRF has nothing to guard
(ninja's routes are CSRF-exempt on the page chain too).
``tests/core/test_lean_api.py`` fails if a route ever takes another
authentication, or if a page loses a protection. The docs page and the
schema sit under the prefix but are a browser's page (Swagger UI): they
keep the page chain (CSP, frames refused).

Each chain is derived from ``MIDDLEWARE`` by leaving entries out, not
listed on its own, so what is added to ``MIDDLEWARE`` later (OpenTelemetry's
Django middleware, inserted at startup when tracing is on; a bench's timing
middleware) wraps every kind unless someone decides otherwise here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any, Literal
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.handlers import base
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.wsgi import WSGIHandler

from switchboard.api.middleware import API_PREFIX

Kind = Literal["static", "api", "pages"]
KINDS: tuple[Kind, ...] = ("static", "api", "pages")


def middleware_for(kind: Kind) -> list[str]:
    """``MIDDLEWARE`` in its order, less what ``kind`` does not use."""
    static, page = list(settings.STATIC_MIDDLEWARE), list(settings.PAGE_MIDDLEWARE)
    missing = [path for path in static + page if path not in settings.MIDDLEWARE]
    if missing:  # a misspelt entry would silently stay in the API's chain
        raise ImproperlyConfigured(f"not in MIDDLEWARE: {', '.join(missing)}")
    skipped = {"static": [], "pages": static, "api": static + page}[kind]
    return [path for path in settings.MIDDLEWARE if path not in skipped]


class Routes:
    """Which handler a path goes to. Paths are the application's own
    (``PATH_INFO``: without the prefix the server mounts it at)."""

    def __init__(self) -> None:
        from config.api import api  # after django.setup(): it imports the apps' models

        if getattr(settings, "WHITENOISE_ROOT", None):
            # Files served outside STATIC_URL would reach a chain without WhiteNoise.
            raise ImproperlyConfigured("WHITENOISE_ROOT needs a route in config/handlers.py")
        self.static_prefix = "/" + urlsplit(settings.STATIC_URL or "/static/").path.strip("/") + "/"
        root = API_PREFIX.rstrip("/")
        self.api_pages = {root + url for url in (api.docs_url, api.openapi_url) if url}

    def kind_of(self, path: str) -> Kind:
        if path.startswith(API_PREFIX) and path not in self.api_pages:
            return "api"
        if path.startswith(self.static_prefix):
            return "static"
        return "pages"


class _WithMiddleware:
    """The settings as ``load_middleware`` reads them, with ``MIDDLEWARE``
    replaced; every other name reads through to the real settings."""

    def __init__(self, middleware: list[str]) -> None:
        self.MIDDLEWARE = middleware

    def __getattr__(self, name: str) -> Any:
        return getattr(settings, name)


_building = threading.Lock()


def _load_middleware(handler: base.BaseHandler, middleware: list[str], is_async: bool) -> None:
    """Django's own ``load_middleware`` over ``middleware``, so the chain is
    built exactly as Django builds one (sync/async adaptation,
    ``MiddlewareNotUsed``, the view and exception hooks) and follows
    Django's upgrades. It reads the list from the ``settings`` name its
    module imported; while it builds (at startup, once per handler), that
    name is a view with this list. Other readers of that module meanwhile
    see the same values for every other setting."""
    with _building:
        base.settings = _WithMiddleware(middleware)  # type: ignore[attr-defined]
        try:
            base.BaseHandler.load_middleware(handler, is_async)
        finally:
            base.settings = settings  # type: ignore[attr-defined]


class LeanAsgiHandler(ASGIHandler):
    def __init__(self, kind: Kind) -> None:
        self.kind: Kind = kind
        super().__init__()

    def load_middleware(self, is_async: bool = False) -> None:
        _load_middleware(self, middleware_for(self.kind), is_async)


class LeanWsgiHandler(WSGIHandler):
    def __init__(self, kind: Kind) -> None:
        self.kind: Kind = kind
        super().__init__()

    def load_middleware(self, is_async: bool = False) -> None:
        _load_middleware(self, middleware_for(self.kind), is_async)


class AsgiRouter:
    """An ASGI application (HTTP) sending each request to its kind's handler."""

    def __init__(self) -> None:
        self.routes = Routes()
        self.handlers = {kind: LeanAsgiHandler(kind) for kind in KINDS}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path, root = scope.get("path", ""), scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        await self.handlers[self.routes.kind_of(path)](scope, receive, send)


class WsgiRouter:
    """A WSGI application sending each request to its kind's handler."""

    def __init__(self) -> None:
        self.routes = Routes()
        self.handlers = {kind: LeanWsgiHandler(kind) for kind in KINDS}

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable:
        return self.handlers[self.routes.kind_of(environ.get("PATH_INFO", ""))](
            environ, start_response
        )
