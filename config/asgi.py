"""ASGI entry point: ``daphne config.asgi:application``."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django must be set up before anything imports models (consumers, routing).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from subscriptions.asgi import WebhookReceiver  # noqa: E402
from switchboard.routing import websocket_urlpatterns  # noqa: E402
from switchboard.telemetry import asgi_server_spans  # noqa: E402

application = ProtocolTypeRouter(
    {
        # The MCP webhook receiver answers before Django (size limit, no
        # middleware); with tracing on, every HTTP request is a server span.
        "http": asgi_server_spans(WebhookReceiver(django_asgi_app)),
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
