"""The applications bench/hot_path.py serves besides ``config.asgi``.

- ``project_wsgi``: the project's WSGI application (``config.wsgi``, routed
  like ``config.asgi``), what gunicorn and granian's WSGI interface serve.
- ``stock_wsgi`` / ``stock_asgi``: Django's stock handlers, every
  middleware on every route and no ASGI receiver in front, so a change to
  the project's entry points (the API skipping the page middleware, say) is
  measured against what it replaced in the same run.

The HTTP servers import it by name (``hot_path_apps:stock_wsgi``) with
``bench/`` on the path; Django is set up by the handlers themselves, with
the run's ``DJANGO_SETTINGS_MODULE``.
"""

from __future__ import annotations

from django.core.asgi import get_asgi_application
from django.core.wsgi import get_wsgi_application


def _project_wsgi():
    from config.wsgi import application

    return application


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
