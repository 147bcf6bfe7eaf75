"""The Switchboard host API for Python.

The operations and models are generated from the API's OpenAPI document
(``switchboard_client.generated``: ``api.<tag>.<operation>`` and ``models``);
this package adds what a generator does not: a set-up client (``connect``),
``paginate`` over every list, retries of 429/503 honouring ``Retry-After``,
typed errors with ``code`` and ``field``, and ``verify_delivery``.
"""

from switchboard_client.client import ACTOR_HEADER, acting_for, connect
from switchboard_client.deliveries import WebhookVerificationError, verify_delivery
from switchboard_client.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    RateLimited,
    SwitchboardError,
    Unauthorized,
    Unavailable,
)
from switchboard_client.paging import paginate
from switchboard_client.retries import RetryingTransport, retry_after_seconds

__all__ = [
    "ACTOR_HEADER",
    "BadRequest",
    "Conflict",
    "Forbidden",
    "Invalid",
    "NotFound",
    "RateLimited",
    "RetryingTransport",
    "SwitchboardError",
    "Unauthorized",
    "Unavailable",
    "WebhookVerificationError",
    "acting_for",
    "connect",
    "paginate",
    "retry_after_seconds",
    "verify_delivery",
]
