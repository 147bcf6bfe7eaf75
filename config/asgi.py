"""ASGI entry point: the Procfile's granian (or daphne, uvicorn) serves ``config.asgi:application``."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django must be set up before anything imports models (consumers, routing);
# this is what get_asgi_application() does before building its one handler.
django.setup(set_prefix=False)

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from config.handlers import AsgiRouter  # noqa: E402
from subscriptions.asgi import WebhookReceiver  # noqa: E402
from switchboard.routing import websocket_urlpatterns  # noqa: E402
from switchboard.telemetry import asgi_server_spans  # noqa: E402

application = ProtocolTypeRouter(
    {
        # The MCP webhook receiver answers before Django (size limit, no
        # middleware); the rest goes to Django by path, the host API and
        # static files past the pages' middleware (config/handlers.py).
        # With tracing on, every HTTP request is a server span.
        "http": asgi_server_spans(WebhookReceiver(AsgiRouter())),
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
