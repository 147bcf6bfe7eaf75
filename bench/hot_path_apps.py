"""The applications bench/hot_path.py serves besides ``config.asgi``.

- ``project_wsgi``: the project's WSGI application, what gunicorn and
  granian's WSGI interface serve. ``config.wsgi`` when the project has one;
  until then Django's own (``get_wsgi_application``), which is what such a
  module holds unless it routes some paths past the middleware.
- ``stock_wsgi`` / ``stock_asgi``: Django's stock handlers, every
  middleware on every route and no ASGI receiver in front, so a change to
  the project's entry points (the API skipping the page middleware, say) is
  measured against what it replaced in the same run.

The HTTP servers import it by name (``hot_path_apps:stock_wsgi``) with
``bench/`` on the path; Django is set up by the handlers themselves, with
the run's ``DJANGO_SETTINGS_MODULE``.
"""

from __future__ import annotations

import importlib

from django.core.asgi import get_asgi_application
from django.core.wsgi import get_wsgi_application


def _project_wsgi():
    try:
        return importlib.import_module("config.wsgi").application
    except ModuleNotFoundError as exc:
        if exc.name != "config.wsgi":
            raise
        return get_wsgi_application()


def __getattr__(name: str):
    # Built on first use, so a server that imports one of them does not
    # build the others (each builds the whole middleware chain).
    makers = {
        "project_wsgi": _project_wsgi,
        "stock_wsgi": get_wsgi_application,
        "stock_asgi": get_asgi_application,
    }
    if name not in makers:
        raise AttributeError(name)
    app = makers[name]()
    globals()[name] = app
    return app
