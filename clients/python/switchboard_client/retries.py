"""Retries of 429 and 503 that honour ``Retry-After``, as an httpx transport, so
every call (generated or not) gets them. Other answers, and errors of the
connection itself, are the caller's to handle."""

from __future__ import annotations

import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime

import httpx

RETRIED_STATUSES = frozenset({429, 503})


def retry_after_seconds(value: str | None, *, now: Callable[[], float] = time.time) -> float | None:
    """``Retry-After`` as seconds to wait: delta-seconds or an HTTP date; None if absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - now())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


class RetryingTransport(httpx.BaseTransport):
    """Sends a request again after a 429 or 503, waiting what ``Retry-After``
    asks (``default_wait`` without one; never more than ``max_wait``), at most
    ``retries`` times. The last answer is returned as it is."""

    def __init__(
        self,
        inner: httpx.BaseTransport | None = None,
        *,
        retries: int = 3,
        default_wait: float = 1.0,
        max_wait: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.inner = inner or httpx.HTTPTransport()
        self.retries = retries
        self.default_wait = default_wait
        self.max_wait = max_wait
        self.sleep = sleep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        # The body is read once, so each attempt can send it again.
        request.read()
        attempt = 0
        while True:
            response = self.inner.handle_request(request)
            if response.status_code not in RETRIED_STATUSES or attempt >= self.retries:
                return response
            wait = retry_after_seconds(response.headers.get("Retry-After"))
            response.close()
            self.sleep(min(self.max_wait, self.default_wait if wait is None else wait))
            attempt += 1

    def close(self) -> None:
        self.inner.close()
