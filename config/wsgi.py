"""WSGI entry point: ``gunicorn config.wsgi:application`` (or granian).

HTTP only, routed by path as under ASGI (``config/handlers.py``): the host
API and static files past the pages' middleware. The live pages' websocket
(``/ws/live/``) needs the ASGI application; a WSGI deployment serves it
from an ASGI process beside this one. The MCP webhook receiver is its Django view here
(``subscriptions.views.webhook``: the same service and answers, the size
checked once the body is read, where the ASGI receiver refuses it while it
arrives)."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)

from config.handlers import WsgiRouter  # noqa: E402

application = WsgiRouter()
