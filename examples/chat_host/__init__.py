"""A small chat host on the official ``mcp`` SDK that uses Switchboard for
consent, context, lifecycle hooks and deliveries (examples/README.md)."""

from examples.chat_host.api import ApiError, SwitchboardApi
from examples.chat_host.endpoint import DeliveryEndpoint
from examples.chat_host.host import ChatHost, Turn

__all__ = ["ApiError", "ChatHost", "DeliveryEndpoint", "SwitchboardApi", "Turn"]
