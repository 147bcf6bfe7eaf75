"""Typed errors: every answer of 400 or more becomes a ``SwitchboardError``
carrying the API's ``{"error": {"code", "message", "field"?}}``, raised from the
HTTP client itself, so no generated call ever hands back an error body as if
it were an answer."""

from __future__ import annotations

import json

import httpx


class SwitchboardError(Exception):
    """An answer of 400 or more. ``code`` is the API's error code (``invalid``,
    ``not_found``, ``invalid_cursor``…), ``field`` the field to blame, if one is."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        field: str | None = None,
        *,
        retry_after: float | None = None,
    ):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.retry_after = retry_after


class BadRequest(SwitchboardError):
    """400: the body is not JSON, or not an object (``malformed``)."""


class Unauthorized(SwitchboardError):
    """401: no valid API key."""


class Forbidden(SwitchboardError):
    """403: authenticated, but not allowed."""


class NotFound(SwitchboardError):
    """404: no such object for this host."""


class Conflict(SwitchboardError):
    """409: in conflict with the object's current state."""


class Invalid(SwitchboardError):
    """422: valid JSON with an invalid value; ``field`` names it."""


class RateLimited(SwitchboardError):
    """429 still, after the retries: slow down (``retry_after`` seconds)."""


class Unavailable(SwitchboardError):
    """503 still, after the retries: a dependency is down."""


_BY_STATUS: dict[int, type[SwitchboardError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    422: Invalid,
    429: RateLimited,
    503: Unavailable,
}


def error_from(response: httpx.Response) -> SwitchboardError:
    """The typed error for an answer of 400 or more (read in full)."""
    from switchboard_client.retries import retry_after_seconds

    code, message, field = "error", response.text[:500] or response.reason_phrase, None
    try:
        body = json.loads(response.content)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        error = body["error"]
        code = str(error.get("code") or code)
        message = str(error.get("message") or message)
        field = error.get("field")
    kind = _BY_STATUS.get(response.status_code, SwitchboardError)
    return kind(
        response.status_code,
        code,
        message,
        field,
        retry_after=retry_after_seconds(response.headers.get("Retry-After")),
    )


def raise_for_error(response: httpx.Response) -> None:
    """httpx response hook: raise the typed error for an answer of 400 or more."""
    if response.status_code >= 400:
        response.read()
        raise error_from(response)
